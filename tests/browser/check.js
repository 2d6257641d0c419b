// Injected into a copy of results/paper.html by paper_html_test: once the
// page has loaded, it records what the test checks in <pre id="browser-check">
// as JSON (images, anchors, relative links, the claims table, the text).
window.addEventListener('load', function () {
  var images = Array.prototype.slice.call(document.images);
  var broken = images.filter(function (i) { return !(i.complete && i.naturalWidth > 0); })
                     .map(function (i) { return i.getAttribute('src'); });
  var anchors = Array.prototype.slice.call(document.querySelectorAll('a[href^="#"]'))
                     .map(function (a) { return decodeURIComponent(a.getAttribute('href').slice(1)); })
                     .filter(function (id) { return id && !document.getElementById(id); });
  var links = Array.prototype.slice.call(document.querySelectorAll('a[href]'))
                   .map(function (a) { return a.getAttribute('href'); })
                   .filter(function (h) { return !/^[a-z]+:/.test(h) && h.charAt(0) !== '#'; });
  var table = document.querySelector('table');
  var rows = table ? Array.prototype.slice.call(table.rows).map(function (r) {
    return Array.prototype.slice.call(r.cells).map(function (c) { return c.innerText; });
  }) : [];
  var out = {images: images.length, broken_images: broken, missing_anchors: anchors, links: links,
             numbers: document.querySelectorAll('a.num').length, claims_table: rows, text: document.body.innerText};
  var pre = document.createElement('pre');
  pre.id = 'browser-check';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
