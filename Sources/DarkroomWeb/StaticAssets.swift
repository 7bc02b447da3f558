/// The stylesheet and the one small script (live refresh); served from memory.
enum StaticAssets {
    static let css = """
        :root { --ink: #1d2329; --muted: #5b6670; --line: #d8dde2; --accent: #1f6feb; --ok: #2d8a4e; --bad: #c93c37; --bg: #f6f7f9; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--bg); }
        header { display: flex; align-items: center; gap: 1.5rem; padding: .6rem 1.5rem; background: #20262d; color: #fff; }
        header a { color: #cfd8e3; text-decoration: none; margin-right: 1rem; }
        header a[aria-current] { color: #fff; border-bottom: 2px solid #fff; }
        .brand { font-size: 1.1rem; letter-spacing: .04em; }
        .account { margin-left: auto; display: flex; gap: .6rem; align-items: center; color: #cfd8e3; }
        main { padding: 1rem 1.5rem 3rem; max-width: 1200px; }
        h1 { font-size: 1.5rem; margin: .4rem 0 1rem; } h2 { font-size: 1.1rem; margin: 1.6rem 0 .5rem; }
        table { border-collapse: collapse; background: #fff; border: 1px solid var(--line); }
        th, td { padding: .35rem .7rem; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
        th { font-weight: 600; color: var(--muted); font-size: .85rem; }
        .num { text-align: right; font-variant-numeric: tabular-nums; }
        .cards { display: flex; gap: 1rem; flex-wrap: wrap; }
        .card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .4rem 1rem .8rem; min-width: 240px; }
        .big { font-size: 1.6rem; margin: .2rem 0; }
        .summary { font-size: 1.05rem; background: #fff; border: 1px solid var(--line); padding: .5rem .8rem; border-radius: 6px; }
        progress { width: 180px; height: 14px; accent-color: var(--ok); vertical-align: middle; }
        .bar.wide progress { width: min(100%, 720px); height: 26px; }
        .bar.wide { display: flex; align-items: center; gap: .8rem; margin: .8rem 0; font-size: 1.2rem; }
        .counts td { text-align: center; font-variant-numeric: tabular-nums; }
        .code { font-family: ui-monospace, monospace; background: #eef1f4; padding: 0 .3rem; border-radius: 3px; }
        .attempts { margin: .3rem 0; padding-left: 1.2rem; font-size: .9rem; }
        form.inline { display: inline; }
        button { font: inherit; padding: .25rem .7rem; border: 1px solid #9aa5b1; border-radius: 4px; background: #fff; cursor: pointer; }
        header button { background: transparent; color: #fff; border-color: #6b7785; }
        .actions { display: flex; gap: .8rem; align-items: center; margin-top: 1.2rem; }
        .pair { display: flex; gap: 1rem; margin: .8rem 0 1.4rem; flex-wrap: wrap; }
        figure { margin: 0; background: #fff; border: 1px solid var(--line); padding: .5rem; border-radius: 6px; }
        figure img { display: block; width: 360px; height: 270px; object-fit: contain; background: #e9ecef; }
        img.rendition { display: block; width: 120px; height: 90px; object-fit: contain; background: #e9ecef; }
        .state-stale, .state-removed { color: #8a5a00; }
        figcaption { font-size: .85rem; color: var(--muted); max-width: 360px; margin-top: .3rem; }
        dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; background: #fff; border: 1px solid var(--line); padding: .7rem 1rem; border-radius: 6px; }
        dt { color: var(--muted); } dd { margin: 0; }
        .note { color: var(--muted); } .refusal { color: var(--bad); font-weight: 600; }
        .flash { background: #e7f3ea; border: 1px solid #b6dcc0; padding: .5rem .8rem; border-radius: 6px; }
        .flash.error { background: #fbeaea; border-color: #eab4b2; }
        .worker-silent td { color: var(--bad); }
        .signin { max-width: 340px; background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 1rem 1.4rem 1.4rem; margin-top: 3rem; }
        .signin label { display: block; margin: .6rem 0; } .signin input { width: 100%; font: inherit; padding: .35rem; }
        .filter { display: flex; gap: 1rem; align-items: end; margin-bottom: 1rem; }
        .filter input { font: inherit; padding: .2rem .4rem; }
        """

    /// Refreshes the page's `#live` part every two seconds from the same address; the page is
    /// whole without it (reload to refresh).
    static let script = """
        (function () {
          var live = document.getElementById('live');
          if (!live || !window.fetch || !window.DOMParser) return;
          setInterval(function () {
            fetch(location.href, { credentials: 'same-origin', headers: { 'Accept': 'text/html' } })
              .then(function (r) { return r.ok ? r.text() : null; })
              .then(function (text) {
                if (!text) return;
                var fresh = new DOMParser().parseFromString(text, 'text/html').getElementById('live');
                if (fresh) live.innerHTML = fresh.innerHTML;
              })
              .catch(function () {});
          }, 2000);
        })();
        """
}
