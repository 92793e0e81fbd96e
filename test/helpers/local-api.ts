import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What every local stand-in for a model API shares: one POST route with a
 * JSON body, listening on 127.0.0.1 only; any other method or path is a
 * 404 in the API's own error shape. A subclass answers the route.
 */
export abstract class LocalApi<Request> {
  private server: Server | undefined;

  protected constructor(
    private readonly route: string,
    /** What start() appends to the origin (the base URL the client is given). */
    private readonly base: string,
    private readonly notFound: (what: string) => unknown,
  ) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${this.base}`;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  /** Answers one request to the route. */
  protected abstract answer(request: Request, res: ServerResponse): void | Promise<void>;

  private handle(req: IncomingMessage, res: ServerResponse): void {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      if (req.method !== 'POST' || path !== this.route) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(this.notFound(`mock: no ${req.method} ${path}`)));
        return;
      }
      void this.answer(JSON.parse(body) as Request, res);
    });
  }
}
