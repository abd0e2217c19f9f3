import { createHash } from 'node:crypto';
import type { BreachReport } from './breach-report.js';

/**
 * The report as a printable page: self-contained (no scripts, no outside resources, styles inline)
 * and served with a CSP that allows only its own style block, by hash, so that nothing injected
 * through the record's text could run or load anything.
 */
const STYLE = `body{font:11pt/1.45 system-ui,sans-serif;margin:2rem auto;max-width:50rem;color:#111}
h1{font-size:1.5rem;margin-bottom:.25rem}
h2{font-size:1.05rem;border-bottom:1px solid #999;margin-top:1.5rem}
.meta{color:#444;font-size:.9rem}
section p{white-space:pre-line;margin:.4rem 0}
table{border-collapse:collapse;width:100%;font-size:.9rem}
td,th{border:1px solid #bbb;padding:.25rem .5rem;text-align:left;vertical-align:top}
@media print{body{margin:0;max-width:none}h2{break-after:avoid}section{break-inside:avoid}}`;

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

export const REPORT_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${STYLE_HASH}'`,
  "img-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

export function breachReportHtml(report: BreachReport): string {
  const sections = report.sections
    .map(
      (s) =>
        `<section id="${escapeHtml(s.key)}" data-section="${escapeHtml(s.key)}"><h2>${escapeHtml(s.title)}</h2><p>${escapeHtml(s.content)}</p></section>`,
    )
    .join('\n');
  const timeline = report.timeline
    .map((t) => `<tr><td>${escapeHtml(t.at)}</td><td>${escapeHtml(t.what)}</td></tr>`)
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Personal-data breach notification ${escapeHtml(report.incidentId)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>Personal-data breach notification</h1>
<p class="meta">Incident ${escapeHtml(report.incidentId)} · organisation ${escapeHtml(report.organisationId)} · generated ${escapeHtml(report.generatedAt)}</p>
</header>
<main>
${sections}
<section id="timeline" data-section="timeline"><h2>Timeline</h2>
<table><thead><tr><th>When (UTC)</th><th>What</th></tr></thead>
<tbody>
${timeline}
</tbody></table></section>
</main>
</body>
</html>
`;
}
