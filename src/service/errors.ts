/**
 * The API's error answers: a stable code, what happened, the limit and what
 * was found where a limit was hit, and what to do. Every answer that is
 * not a success carries one, on every route (unknown ones included).
 */
export type ApiErrorCode =
  | 'unauthorized'
  | 'bad_request'
  | 'unsupported_media_type'
  | 'upload_too_large'
  | 'spec_not_allowed'
  | 'check_not_found'
  | 'job_time_limit'
  | 'too_many_jobs'
  | 'not_found'
  | 'request_timeout'
  | 'headers_too_large'
  | 'internal'
  | 'unavailable';

export interface ApiError {
  readonly code: ApiErrorCode;
  readonly message: string;
  readonly limit?: number | string;
  readonly found?: number | string;
  readonly hint?: string;
}

export function apiStatus(code: ApiErrorCode): number {
  switch (code) {
    case 'unauthorized':
      return 401;
    case 'bad_request':
    case 'check_not_found':
      return 400;
    case 'spec_not_allowed':
      return 403;
    case 'not_found':
      return 404;
    case 'request_timeout':
      return 408;
    case 'headers_too_large':
      return 431;
    case 'upload_too_large':
      return 413;
    case 'unsupported_media_type':
      return 415;
    case 'job_time_limit':
      return 422;
    case 'too_many_jobs':
      return 429;
    case 'internal':
      return 500;
    case 'unavailable':
      return 503;
  }
}
