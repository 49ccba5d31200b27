// The checkout page's only script (served from the gateway; the CSP allows nothing else).
// The server renders every state; this script ticks the countdown, posts the method choice, copies
// values, and swaps in the server's fresh panel when the link changes. No framework, no globals.
(function () {
  'use strict';

  var root = document.getElementById('checkout-root');
  if (!root) return;
  var linkId = root.getAttribute('data-link-id');
  var lang = root.getAttribute('data-lang');
  var pollMs = Number(root.getAttribute('data-poll-ms')) || 2000;
  var announcer = document.getElementById('announcer');
  var base = '/p/' + encodeURIComponent(linkId);
  var msg = function (name) {
    return root.getAttribute('data-msg-' + name) || '';
  };

  var clockOffset = 0; // server time minus this device's time, so a wrong phone clock does not matter
  var countdownTimer = null;
  var pollTimer = null;
  var refreshing = null;

  function panel() {
    return document.getElementById('checkout');
  }
  function isPending() {
    var p = panel();
    return !!p && p.getAttribute('data-status') === 'pending';
  }

  function announce(text) {
    // Clearing first makes screen readers repeat a message that happens to be the same as the last one.
    announcer.textContent = '';
    window.setTimeout(function () {
      announcer.textContent = text;
    }, 50);
  }

  // Same as formatRemaining in format.ts.
  function formatRemaining(ms) {
    var total = Math.max(0, Math.floor(ms / 1000));
    var days = Math.floor(total / 86400);
    var pad = function (n) {
      return (n < 10 ? '0' : '') + n;
    };
    var clock = pad(Math.floor((total % 86400) / 3600)) + ':' + pad(Math.floor((total % 3600) / 60)) + ':' + pad(total % 60);
    return days > 0 ? days + '\u00a0' + msg('day') + ' ' + clock : clock;
  }

  function startCountdown() {
    window.clearInterval(countdownTimer);
    var p = panel();
    var el = document.getElementById('countdown');
    if (!p || !el) return;
    clockOffset = Date.parse(p.getAttribute('data-server-now')) - Date.now();
    var expiresAt = Date.parse(el.getAttribute('data-expires-at'));
    var tick = function () {
      var left = expiresAt - (Date.now() + clockOffset);
      el.textContent = formatRemaining(left);
      if (left <= 0) {
        window.clearInterval(countdownTimer);
        poll(); // the server decides that the link expired; ask now rather than at the next poll
      }
    };
    tick();
    countdownTimer = window.setInterval(tick, 1000);
  }

  // Replaces the panel with the server's current one. `focusId` moves focus there afterwards.
  function refreshPanel(focusId) {
    if (refreshing) return refreshing;
    var before = panel();
    var hadFocus = before && before.contains(document.activeElement);
    var oldStatus = before ? before.getAttribute('data-status') : null;
    refreshing = fetch(base + '/panel?lang=' + encodeURIComponent(lang), { headers: { Accept: 'text/html' }, cache: 'no-store' })
      .then(function (res) {
        if (!res.ok) throw new Error('panel ' + res.status);
        return res.text();
      })
      .then(function (text) {
        var next = new DOMParser().parseFromString(text, 'text/html').getElementById('checkout');
        var current = panel();
        if (!next || !current) return;
        current.replaceWith(document.adoptNode(next));
        startCountdown();
        var status = next.getAttribute('data-status');
        var target = focusId ? document.getElementById(focusId) : null;
        if (status !== oldStatus && status !== 'pending') {
          returnToShopLater();
          var heading = document.getElementById('final-heading');
          announce(heading ? heading.textContent : msg('status-changed'));
          if (hadFocus && heading) heading.focus();
        } else if (target) {
          target.focus();
        } else if (hadFocus) {
          var first = next.querySelector('input:checked, input, button');
          if (first) first.focus();
        }
      })
      .finally(function () {
        refreshing = null;
      });
    return refreshing;
  }

  // A paid panel with the merchant's return_url: go back to the shop after the delay the server set
  // (a page that was paid when it loaded does the same through its meta refresh).
  function returnToShopLater() {
    var link = document.querySelector('#checkout [data-return-after-ms]');
    if (!link) return;
    var href = link.href;
    window.setTimeout(
      function () {
        window.location.assign(href);
      },
      Number(link.getAttribute('data-return-after-ms')) || 5000,
    );
  }

  function schedulePoll() {
    window.clearTimeout(pollTimer);
    if (isPending()) pollTimer = window.setTimeout(poll, pollMs);
  }

  function poll() {
    window.clearTimeout(pollTimer);
    var p = panel();
    if (!p || !isPending()) return;
    fetch(base + '/status', { headers: { Accept: 'application/json' }, cache: 'no-store' })
      .then(function (res) {
        return res.ok ? res.json() : null;
      })
      .then(function (view) {
        var now = panel();
        if (!view || !now) return;
        // Another tab may have changed the method: any change to the link brings the fresh panel.
        // A payment confirming or part paid changes no field of the link: its progress is compared too.
        var progress = view.payment_progress ? view.payment_progress.status + ':' + (view.payment_progress.remaining_crypto_amount || '') : '';
        if (
          view.status !== now.getAttribute('data-status') ||
          view.updated_at !== now.getAttribute('data-updated-at') ||
          progress !== (now.getAttribute('data-progress') || '')
        ) {
          return refreshPanel(null);
        }
      })
      .catch(function () {
        /* offline for a moment: the next poll tries again */
      })
      .finally(schedulePoll);
  }

  function showFormError(text) {
    var el = document.getElementById('method-error');
    if (el) el.textContent = text;
  }

  function choose(form) {
    var checked = form.querySelector('input[name="method"]:checked');
    if (!checked) {
      showFormError(msg('choose-first'));
      var first = form.querySelector('input[name="method"]');
      if (first) first.focus();
      return;
    }
    var body = checked.value === 'sbp' ? { method: 'sbp' } : { method: 'crypto', network: checked.value };
    var button = form.querySelector('button[type="submit"]');
    var label = button.textContent;
    button.disabled = true;
    button.textContent = msg('selecting');
    showFormError('');
    fetch(base + '/select', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
      cache: 'no-store',
    })
      .then(function (res) {
        // 409: the link stopped being pending meanwhile; the fresh panel says what happened.
        if (!res.ok && res.status !== 409) {
          var failed = new Error('select ' + res.status);
          failed.status = res.status;
          throw failed;
        }
        return refreshPanel(res.ok ? 'details-heading' : null);
      })
      .catch(function (err) {
        if (!document.body.contains(button)) return;
        button.disabled = false;
        button.textContent = label;
        // 503: the method's provider is down for now; 422: it does not take this payment. The others stay offered.
        var status = err && err.status;
        showFormError(msg(status === 503 ? 'method-unavailable' : status === 422 ? 'method-refused' : 'select-failed'));
      })
      .finally(schedulePoll);
  }

  // A test link's stand-in for the provider: links settles it as a callback would, then the fresh panel shows
  // the paid or failed state like any other change.
  function simulate(button) {
    var group = button.closest('.simulate');
    var buttons = group.querySelectorAll('button[data-simulate]');
    var error = document.getElementById('simulate-error');
    var label = button.textContent;
    for (var i = 0; i < buttons.length; i++) buttons[i].disabled = true;
    button.textContent = msg('simulating');
    if (error) error.textContent = '';
    fetch(base + '/simulate', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ status: button.getAttribute('data-simulate') }),
      cache: 'no-store',
    })
      .then(function (res) {
        // 409: the link stopped being pending meanwhile; the fresh panel says what happened.
        if (!res.ok && res.status !== 409) throw new Error('simulate ' + res.status);
        return refreshPanel(null);
      })
      .catch(function () {
        if (!document.body.contains(button)) return;
        for (var j = 0; j < buttons.length; j++) buttons[j].disabled = false;
        button.textContent = label;
        if (error) error.textContent = msg('simulate-failed');
      })
      .finally(schedulePoll);
  }

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    // Plain-http pages have no Clipboard API: fall back to copying a selection.
    return new Promise(function (resolve, reject) {
      var area = document.createElement('textarea');
      area.value = text;
      area.setAttribute('readonly', '');
      area.className = 'sr-only';
      document.body.appendChild(area);
      area.select();
      var ok;
      try {
        ok = document.execCommand('copy');
      } catch (_unsupported) {
        ok = false;
      }
      document.body.removeChild(area);
      if (ok) resolve();
      else reject(new Error('copy'));
    });
  }

  root.addEventListener('submit', function (event) {
    if (event.target && event.target.id === 'method-form') {
      event.preventDefault();
      choose(event.target);
    }
  });

  root.addEventListener('click', function (event) {
    var simulated = event.target.closest ? event.target.closest('button[data-simulate]') : null;
    if (simulated) {
      simulate(simulated);
      return;
    }
    var button = event.target.closest ? event.target.closest('button.copy') : null;
    if (!button) return;
    var label = button.textContent;
    copyText(button.getAttribute('data-copy'))
      .then(function () {
        button.textContent = msg('copied');
        button.classList.add('done');
        announce(msg('copied'));
        window.setTimeout(function () {
          button.textContent = label;
          button.classList.remove('done');
        }, 2000);
      })
      .catch(function () {
        announce(msg('copy-failed'));
      });
  });

  document.addEventListener('visibilitychange', function () {
    if (document.visibilityState === 'visible') poll();
  });

  startCountdown();
  schedulePoll();
})();
