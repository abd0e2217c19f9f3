/**
 * The webhooks page (`{base}/portal`): what an endpoint's owner looks at instead of reading JSON.
 * Served like the console, from this API's own origin under the same strict CSP: no inline script
 * or style, nothing fetched from anywhere else. The token is asked for and kept in a variable of
 * the script only (never in storage, a cookie or the URL), so closing the tab forgets it.
 */

export const PORTAL_SCRIPT_NAME = 'portal.js';
export const PORTAL_STYLE_NAME = 'portal.css';

const escapeAttribute = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function portalPage(basePath: string): string {
  const base = escapeAttribute(basePath);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Webhooks: Membership and Incident Service</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${base}/docs/${PORTAL_STYLE_NAME}">
</head>
<body data-api-base="${base}">
<header><h1>Webhooks</h1><p>Your endpoints, what was delivered to them, and what to do when something was missed.</p></header>
<main>
<form id="token-form" autocomplete="off">
  <label for="token">API token <span class="hint">(scope read; write for the buttons). Kept in this tab only.</span></label>
  <div class="row"><input id="token" name="token" type="password" spellcheck="false" required>
  <button type="submit">Open</button></div>
</form>
<p id="status" role="status" aria-live="polite"></p>
<section id="secret-box" hidden>
  <h2>New signing secret</h2>
  <p>Shown this once: store it in your receiver now. <span id="secret-overlap"></span></p>
  <code id="secret-value"></code>
  <button type="button" id="secret-done">I have stored it</button>
</section>
<section id="endpoints-section" hidden>
  <h2>Endpoints</h2>
  <table id="endpoints"><thead><tr>
    <th>Endpoint</th><th>Status</th><th>Recent success</th><th>Actions</th>
  </tr></thead><tbody></tbody></table>
</section>
<section id="deliveries-section" hidden>
  <h2>Deliveries of <span id="deliveries-of"></span></h2>
  <div class="row">
    <label for="recover-since">Recover failed and skipped since</label>
    <input id="recover-since" type="datetime-local">
    <button type="button" id="recover">Recover</button>
    <button type="button" id="refresh">Refresh</button>
  </div>
  <table id="deliveries"><thead><tr>
    <th>Delivery</th><th>Event</th><th>Attempts</th><th>Last outcome</th><th>Actions</th>
  </tr></thead><tbody></tbody></table>
</section>
</main>
<script src="${base}/docs/${PORTAL_SCRIPT_NAME}"></script>
</body>
</html>
`;
}

export const PORTAL_STYLE = `
body { font: 15px/1.45 system-ui, sans-serif; margin: 0; color: #1b1f24; background: #f6f7f9; }
header { background: #1d3b53; color: #fff; padding: 12px 24px; }
header h1 { margin: 0; font-size: 22px; }
header p { margin: 4px 0 0; opacity: .85; }
main { padding: 16px 24px; max-width: 1200px; }
form, section { background: #fff; border: 1px solid #d8dde3; border-radius: 6px; padding: 12px 16px; margin-bottom: 16px; }
.row { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin: 6px 0; }
input[type=password] { width: 460px; max-width: 100%; font-family: monospace; }
input, button { font: inherit; padding: 4px 8px; }
button { border: 1px solid #8a96a3; border-radius: 4px; background: #eef1f4; cursor: pointer; }
button:hover { background: #dde3e9; }
.hint { color: #5b6672; font-size: 13px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid #e4e8ec; vertical-align: top; }
th { font-size: 13px; color: #5b6672; }
.url { font-family: monospace; word-break: break-all; }
.muted { color: #5b6672; font-size: 13px; }
.badge { display: inline-block; border-radius: 10px; padding: 1px 9px; font-size: 13px; font-weight: 600; }
.ok { background: #dcf3e3; color: #135c2c; }
.bad { background: #fbe0e0; color: #8a1c1c; }
.warn { background: #fdf0cf; color: #704d00; }
.neutral { background: #e6eaef; color: #34404c; }
.attempts { margin: 0; padding-left: 0; list-style: none; font-size: 13px; }
#status { min-height: 1.4em; font-weight: 600; }
#status.error { color: #8a1c1c; }
#secret-box { border-color: #d9a400; background: #fffbea; }
#secret-value { display: block; font-size: 15px; padding: 8px; background: #fff; border: 1px dashed #b48a00; margin: 8px 0; word-break: break-all; }
tr.selected td { background: #eef5fb; }
`;

/**
 * Plain browser JavaScript: every value from the API goes into the page as text (textContent),
 * never as markup, so an endpoint's URL or description cannot inject anything.
 */
export const PORTAL_SCRIPT = `'use strict';
(function () {
  var base = document.body.getAttribute('data-api-base');
  var token = null; // in memory only
  var selected = null;
  var endpointsById = {};
  // A refresh started while another runs replaces it: only the newest one's rows are shown.
  var generation = 0;

  function $(id) { return document.getElementById(id); }
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === 'text') node.textContent = attrs[k];
      else if (k === 'className') node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(c); });
    return node;
  }
  function say(text, isError) {
    var s = $('status');
    s.textContent = text;
    s.className = isError ? 'error' : '';
  }
  function api(method, path, body) {
    var init = { method: method, headers: { Authorization: 'Bearer ' + token, Accept: 'application/json' } };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(base + path, init).then(function (response) {
      return response.text().then(function (text) {
        var json = text ? JSON.parse(text) : null;
        if (!response.ok) {
          var detail = json && (json.detail || json.title) ? json.detail || json.title : 'HTTP ' + response.status;
          throw new Error(detail);
        }
        return json;
      });
    });
  }
  function button(label, onClick, name) {
    var b = el('button', { type: 'button', text: label, 'data-action': name || label.toLowerCase() });
    b.addEventListener('click', onClick);
    return b;
  }
  function badge(text, kind) { return el('span', { className: 'badge ' + kind, text: text }); }

  function statusBadge(endpoint) {
    if (endpoint.status === 'enabled') {
      return endpoint.failingSince ? badge('enabled, failing since ' + endpoint.failingSince.slice(0, 16).replace('T', ' '), 'warn') : badge('enabled', 'ok');
    }
    var reasons = { gone: 'disabled: gone (410)', failing: 'disabled: failing', manual: 'disabled by you' };
    return badge(reasons[endpoint.disabledReason] || 'disabled', 'bad');
  }

  /** Of the endpoint's newest attempts (skips are not attempts): how many succeeded. */
  function successRate(deliveries) {
    var made = deliveries.filter(function (d) { return d.outcome !== 'skipped'; });
    if (made.length === 0) return { text: 'no attempts yet', kind: 'neutral' };
    var ok = made.filter(function (d) { return d.outcome === 'succeeded'; }).length;
    var pct = Math.round((100 * ok) / made.length);
    return { text: pct + '% of last ' + made.length + (made.length === 1 ? ' attempt' : ' attempts'), kind: pct >= 90 ? 'ok' : pct >= 50 ? 'warn' : 'bad' };
  }

  function loadEndpoints(mine) {
    return api('GET', '/webhooks?limit=100').then(function (page) {
      var tbody = $('endpoints').querySelector('tbody');
      var found = {};
      return Promise.all(page.data.map(function (endpoint) {
        found[endpoint.id] = endpoint;
        return api('GET', '/webhooks/' + endpoint.id + '/deliveries?limit=100').then(function (log) {
          var rate = successRate(log.data);
          var row = el('tr', { 'data-endpoint': endpoint.id, className: endpoint.id === selected ? 'selected' : '' }, [
            el('td', {}, [
              el('div', { className: 'url', text: endpoint.url }),
              el('div', { className: 'muted', text: (endpoint.description ? endpoint.description + ' · ' : '') + endpoint.id }),
            ]),
            el('td', { className: 'status' }, [statusBadge(endpoint)]),
            el('td', { className: 'rate' }, [badge(rate.text, rate.kind)]),
            el('td', {}, [
              button('Deliveries', function () { selectEndpoint(endpoint.id); }),
              button('Test', function () { sendTest(endpoint.id); }),
              endpoint.status === 'enabled'
                ? button('Disable', function () { setEnabled(endpoint.id, false); })
                : button('Enable', function () { setEnabled(endpoint.id, true); }),
              button('Rotate secret', function () { rotate(endpoint.id); }, 'rotate'),
            ]),
          ]);
          return row;
        });
      })).then(function (rows) {
        if (mine !== generation) return;
        endpointsById = found;
        tbody.textContent = '';
        $('endpoints-section').hidden = false;
        if (rows.length === 0) {
          tbody.appendChild(el('tr', {}, [el('td', { colspan: '4', text: 'No endpoints yet: register one with POST /webhooks.' })]));
        }
        rows.forEach(function (r) { tbody.appendChild(r); });
      });
    });
  }

  /** The log lists attempts; the page shows one row per delivery, with its attempts under it. */
  function groupByDelivery(attempts) {
    var order = [];
    var byId = {};
    attempts.forEach(function (a) {
      if (!byId[a.deliveryId]) { byId[a.deliveryId] = []; order.push(a.deliveryId); }
      byId[a.deliveryId].push(a);
    });
    return order.map(function (id) { return { id: id, attempts: byId[id] }; });
  }

  function outcomeBadge(outcome) {
    var kind = outcome === 'succeeded' ? 'ok' : outcome === 'retry_scheduled' || outcome === 'skipped' ? 'warn' : 'bad';
    return badge(outcome.replace('_', ' '), kind);
  }

  function loadDeliveries(mine) {
    if (!selected || mine !== generation) return Promise.resolve();
    var endpoint = endpointsById[selected];
    $('deliveries-of').textContent = endpoint ? endpoint.url : selected;
    $('deliveries-section').hidden = false;
    return api('GET', '/webhooks/' + selected + '/deliveries?limit=100').then(function (log) {
      if (mine !== generation) return;
      var tbody = $('deliveries').querySelector('tbody');
      tbody.textContent = '';
      var groups = groupByDelivery(log.data);
      if (groups.length === 0) tbody.appendChild(el('tr', {}, [el('td', { colspan: '5', text: 'Nothing delivered yet.' })]));
      groups.forEach(function (group) {
        var last = group.attempts[0];
        var list = el('ul', { className: 'attempts' }, group.attempts.map(function (a) {
          var what = a.outcome + (a.statusCode ? ' (HTTP ' + a.statusCode + ')' : a.errorClass ? ' (' + a.errorClass + ')' : '');
          return el('li', { text: '#' + a.attempt + ' ' + a.at.slice(0, 19).replace('T', ' ') + ' ' + what + (a.outcome === 'skipped' ? '' : ', ' + a.latencyMs + ' ms') });
        }));
        tbody.appendChild(el('tr', { 'data-delivery': group.id }, [
          el('td', { className: 'url', text: group.id }),
          el('td', { text: last.event }),
          el('td', {}, [list]),
          el('td', { className: 'outcome' }, [outcomeBadge(last.outcome)]),
          el('td', {}, [button('Redeliver', function () { redeliver(group.id); })]),
        ]));
      });
    });
  }

  // aria-busy tells assistive technology (and the page's tests) that the tables are being
  // replaced; only the newest refresh clears it, as an older one's rows are never shown.
  function refresh() {
    var mine = ++generation;
    document.body.setAttribute('aria-busy', 'true');
    return loadEndpoints(mine)
      .then(function () { return loadDeliveries(mine); })
      .catch(function (e) { say(e.message, true); })
      .then(function () { if (mine === generation) document.body.removeAttribute('aria-busy'); });
  }
  function selectEndpoint(id) {
    selected = id;
    refresh();
  }
  function sendTest(id) {
    api('POST', '/webhooks/' + id + '/test').then(function (r) {
      say('Test sent (delivery ' + r.deliveryId + ').');
      selected = id;
      return refresh();
    }).catch(function (e) { say(e.message, true); });
  }
  function setEnabled(id, enabled) {
    api('PATCH', '/webhooks/' + id, { enabled: enabled }).then(function () {
      say(enabled ? 'Enabled. Use Recover to send what was skipped meanwhile.' : 'Disabled: its events are kept as skipped.');
      return refresh();
    }).catch(function (e) { say(e.message, true); });
  }
  function rotate(id) {
    api('POST', '/webhooks/' + id + '/rotate-secret', { overlapHours: 24 }).then(function (r) {
      $('secret-value').textContent = r.secret;
      $('secret-overlap').textContent = r.previousSecretExpiresAt
        ? 'The old secret keeps signing beside it until ' + r.previousSecretExpiresAt + '.'
        : 'The old secret stopped at once.';
      $('secret-box').hidden = false;
      say('Secret rotated.');
      return refresh();
    }).catch(function (e) { say(e.message, true); });
  }
  function redeliver(deliveryId) {
    api('POST', '/webhooks/' + selected + '/deliveries/' + deliveryId + '/redeliver').then(function () {
      say('Redelivery of ' + deliveryId + ' sent.');
      return refresh();
    }).catch(function (e) { say(e.message, true); });
  }
  function recover() {
    var value = $('recover-since').value;
    var since = value ? new Date(value) : new Date(Date.now() - 86400000);
    api('POST', '/webhooks/' + selected + '/recover', { since: since.toISOString() }).then(function (r) {
      say('Recovering ' + r.count + (r.count === 1 ? ' delivery.' : ' deliveries.'));
      return refresh();
    }).catch(function (e) { say(e.message, true); });
  }

  $('token-form').addEventListener('submit', function (event) {
    event.preventDefault();
    token = $('token').value.trim();
    $('token').value = '';
    say('Loading…');
    refresh().then(function () { if ($('status').className !== 'error') say('Signed in for this tab.'); });
  });
  $('refresh').addEventListener('click', refresh);
  $('recover').addEventListener('click', recover);
  $('secret-done').addEventListener('click', function () {
    $('secret-value').textContent = '';
    $('secret-box').hidden = true;
  });
})();
`;
