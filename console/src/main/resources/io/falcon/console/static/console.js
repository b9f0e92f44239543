// Live updates: the server tells this page (server-sent events) that something it shows changed; the page then
// fetches its live part again (HTML the server rendered and escaped) and puts it in place. No reload, no build step.
(function () {
  const root = document.getElementById('live');
  const state = document.getElementById('live-state');
  if (!root || !root.dataset.live || !window.EventSource) {
    return;
  }
  const topics = root.dataset.live.split(' ').filter(Boolean);
  const source = new EventSource('/events?' + topics.map(t => 'topic=' + encodeURIComponent(t)).join('&'));
  let scheduled = false;
  source.onopen = () => state && state.classList.add('on');
  source.onerror = () => state && state.classList.remove('on');
  source.addEventListener('changed', () => {
    if (scheduled) {
      return;
    }
    scheduled = true;
    setTimeout(async () => {
      scheduled = false;
      const url = new URL(window.location.href);
      url.searchParams.set('fragment', 'live');
      const response = await fetch(url, { credentials: 'same-origin' });
      if (response.ok) {
        root.innerHTML = await response.text();
        root.dataset.updated = String(Date.now());
      }
    }, 250);
  });
})();
