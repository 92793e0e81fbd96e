/**
 * Text from a record (a prompt, a claim, an id from a hook payload) made
 * safe for a terminal: control characters, escape sequences included, are
 * shown as `\xNN` instead of being interpreted. Newlines and tabs stay.
 */
export function visible(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
