"""The built docs as a browser shows them: each page of
docs/_build/html is loaded in headless Chromium at a desktop width, and a probe
script reports what a reader would see go wrong:

* a code block or table wider than the page column (cut off behind a scroll
  bar);
* an image that does not load, or is wider than the column;
* Furo's error box for ``.. contents::`` (``nav.contents``), and docutils'
  ``system-message`` / ``problematic`` nodes.

Usage: python .ci/docs_browser.py docs/_build/html  (exit 1 on findings).
"""
import glob
import html
import os
import re
import shutil
import subprocess
import sys

WIDTH = 1280           # Furo's content column is 736 px at this width
PROBE = """<script>(() => {
  const out = [];
  const say = (what, el) => out.push(what + ': ' + el.textContent.trim().slice(0, 70).replace(/\\s+/g, ' '));
  for (const el of document.querySelectorAll('.table-wrapper, div.highlight pre'))
    if (el.scrollWidth > el.clientWidth + 1)
      say(`${el.tagName.toLowerCase()} ${el.scrollWidth} px wide in a ${el.clientWidth} px column`, el);
  const column = document.querySelector('article').clientWidth;
  for (const img of document.querySelectorAll('article img')) {
    if (!img.complete || img.naturalWidth === 0) out.push('image does not load: ' + img.getAttribute('src'));
    else if (img.getBoundingClientRect().width > column + 1) out.push('image wider than the column: ' + img.getAttribute('src'));
  }
  for (const el of document.querySelectorAll('nav.contents, .system-message, .problematic'))
    say('error box (' + el.className + ')', el);
  const pre = document.createElement('pre'); pre.id = 'docs-browser-report';
  pre.textContent = out.join('\\n') || 'clean';
  document.body.appendChild(pre);
})();</script>"""


def check(page, browser):
    text = open(page, encoding="utf-8").read()
    probe_page = os.path.join(os.path.dirname(page), "_probe_" + os.path.basename(page))
    with open(probe_page, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", PROBE + "</body>"))
    try:
        dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                              f"--window-size={WIDTH},2000", "file://" + probe_page],
                             capture_output=True, text=True, timeout=120).stdout
    finally:
        os.remove(probe_page)
    m = re.search(r'<pre id="docs-browser-report">(.*?)</pre>', dom, re.S)
    if not m:
        return ["the probe did not run"]
    report = html.unescape(m.group(1))
    return [] if report == "clean" else report.splitlines()


def main(argv):
    root = os.path.abspath(argv[1] if len(argv) > 1 else "docs/_build/html")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        print("docs_browser: no chromium on PATH", file=sys.stderr)
        return 1
    pages = [p for p in sorted(glob.glob(os.path.join(root, "*.html")))
             if os.path.basename(p) not in ("genindex.html", "search.html", "py-modindex.html")]
    if not pages:
        print(f"docs_browser: no pages in {root}", file=sys.stderr)
        return 1
    bad = 0
    for page in pages:
        findings = check(page, browser)
        bad += len(findings)
        for f in findings:
            print(f"{os.path.basename(page)}: {f}")
    print(f"docs_browser: {len(pages)} pages at {WIDTH} px, {bad} findings")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
