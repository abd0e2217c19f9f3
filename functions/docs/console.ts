/**
 * The interactive console: Swagger UI served from this API's own origin, with no inline script
 * and no request to anywhere else, so that its Content-Security-Policy can be strict.
 */

/** Swagger UI's own files, served as they ship, and the content type each is sent with. */
export const SWAGGER_UI_FILES: Readonly<Record<string, string>> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
};

/** Our start-up script: an external file, because the CSP allows no inline script. */
export const CONSOLE_SCRIPT_NAME = 'console.js';

export const CONSOLE_SCRIPT = `'use strict';
window.addEventListener('DOMContentLoaded', function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-openapi-url'),
    dom_id: '#swagger-ui',
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    // No call to validator.swagger.io: nothing leaves this origin.
    validatorUrl: null,
    // ?url= and ?configUrl= must not load someone else's document into a page of this origin.
    queryConfigEnabled: false,
    deepLinking: true,
    tryItOutEnabled: true,
    displayRequestDuration: true,
    persistAuthorization: false,
    supportedSubmitMethods: ['get', 'post', 'patch', 'delete'],
  });
});
`;

/**
 * Own assets only: scripts and styles from this origin, requests to this origin (the API itself),
 * inline images only as data: URIs (Swagger UI's icons). No framing, no forms posted elsewhere.
 */
export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
  'Strict-Transport-Security': 'max-age=31536000',
};

const escapeAttribute = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The page; `basePath` is the API's base path as the browser sees it (with the stage on AWS). */
export function consolePage(basePath: string): string {
  const base = escapeAttribute(basePath);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Membership and Incident Service: API console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${base}/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-openapi-url="${base}/openapi.json"></div>
<script src="${base}/docs/swagger-ui-bundle.js"></script>
<script src="${base}/docs/${CONSOLE_SCRIPT_NAME}"></script>
</body>
</html>
`;
}
