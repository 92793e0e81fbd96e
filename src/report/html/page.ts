import type { ReportModel } from '../model/types.js';
import { html, trusted, type Html } from './escape.js';
import { SECTIONS } from './sections/index.js';
import { STYLE } from './style.js';

/**
 * No request leaves the page: the policy forbids every fetch (scripts,
 * images, fonts, frames, forms), so even markup that slipped past escaping
 * could not load or run anything. Styles are inline.
 */
const POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'";

/** The whole report as one self-contained HTML document, rendered from the model alone. */
export function renderHtml(model: ReportModel): string {
  const shown = SECTIONS.flatMap((section) => {
    const body = section.render(model);
    return body === null ? [] : [{ section, body }];
  });
  const spec = model.spec;
  const specLine: Html = spec.sha256
    ? html`vouch.yaml <span class="mono">${spec.sha256.slice(0, 16)}</span> (${spec.trust === 'allowed' ? 'allowed' : `not allowed: ${spec.trust}`})`
    : html`vouch.yaml is not valid`;
  const page = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta http-equiv="Content-Security-Policy" content="${POLICY}" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="generator" content="vouch ${model.vouch}" />
        <title>vouch report: ${model.workspace}</title>
        <style>
          ${trusted(STYLE)}
        </style>
      </head>
      <body>
        <header class="top">
          <h1>vouch report</h1>
          <div class="meta"><span class="mono">${model.workspace}</span> · generated ${model.generated_at} by vouch ${model.vouch} · ${specLine}</div>
          <nav>${shown.map(({ section }) => html`<a href="#${section.id}">${section.title}</a>`)}</nav>
        </header>
        <main>
          ${shown.map(
            ({ section, body }) =>
              html`<section id="${section.id}">
                <h2>${section.title}</h2>
                ${body}
              </section>`,
          )}
          <footer>
            A PASS proves that the configured command met its expectation on the declared files at the recorded hashes, nothing more. Claims are the agents' own
            words, recorded and never counted as evidence; only the checks' receipts are. Local records are tamper-evident, not tamper-proof: the integrity
            section is what the hash chain and signatures say about them.
          </footer>
        </main>
      </body>
    </html> `;
  return page.markup;
}
