// boxcheck: measures the report page's chart in the browser that shows it
// (report_html_chromium.txtar) and writes what it found into the page,
// where --dump-dom reads it: text labels whose boxes overlap or leave the
// chart, whether each compaction rule stands on a vertical drop of a
// context line, and whether each legend key is drawn as its plotted mark.
(function () {
  function list(x) { return Array.prototype.slice.call(x); }
  function say(text) {
    var pre = document.createElement('pre');
    pre.id = 'boxcheck';
    pre.textContent = text;
    document.body.appendChild(pre);
  }
  var chart = document.getElementById('context-chart');
  if (!chart) { say('no chart'); return; }

  var labels = list(chart.querySelectorAll('text')).map(function (t) {
    return { text: t.textContent, box: t.getBoundingClientRect() };
  }).filter(function (l) { return l.box.width > 0 && l.box.height > 0; });
  var overlaps = [];
  for (var i = 0; i < labels.length; i++) {
    for (var j = i + 1; j < labels.length; j++) {
      var a = labels[i].box, b = labels[j].box;
      var w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      var h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 0 && h > 0) { overlaps.push(labels[i].text + ' / ' + labels[j].text); }
    }
  }
  var frame = chart.getBoundingClientRect();
  var outside = labels.filter(function (l) {
    return l.box.left < frame.left || l.box.right > frame.right || l.box.top < frame.top || l.box.bottom > frame.bottom;
  }).map(function (l) { return l.text; });

  var rules = list(chart.querySelectorAll('line.rule'));
  var lines = list(chart.querySelectorAll('polyline.fill'));
  var drops = rules.filter(function (rule) {
    var r = rule.getBoundingClientRect();
    var x = r.left + r.width / 2;
    return lines.some(function (line) {
      var m = line.getScreenCTM(), pts = line.points;
      for (var k = 0; k + 1 < pts.numberOfItems; k++) {
        var p = pts.getItem(k).matrixTransform(m), q = pts.getItem(k + 1).matrixTransform(m);
        if (Math.abs(p.x - x) < 1 && Math.abs(q.x - x) < 1 && q.y > p.y + 1) { return true; }
      }
      return false;
    });
  }).length;

  var keys = list(document.querySelectorAll('.legend [data-mark]'));
  var plotted = list(chart.querySelectorAll('[data-mark]'));
  var problems = [];
  keys.forEach(function (key) {
    var kind = key.getAttribute('data-mark');
    var mark = plotted.filter(function (p) { return p.getAttribute('data-mark') === kind; })[0];
    if (!mark) { problems.push(kind + ': not plotted'); return; }
    var ks = getComputedStyle(key), ms = getComputedStyle(mark);
    ['fill', 'stroke', 'stroke-width', 'stroke-dasharray'].forEach(function (prop) {
      if (ks.getPropertyValue(prop) !== ms.getPropertyValue(prop)) {
        problems.push(kind + ' ' + prop + ' ' + ks.getPropertyValue(prop) + ' vs ' + ms.getPropertyValue(prop));
      }
    });
    var isLine = kind.indexOf('line') === 0 || kind === 'compaction-rule';
    if (!isLine) {
      if (key.tagName !== mark.tagName) { problems.push(kind + ' ' + key.tagName + ' vs ' + mark.tagName); }
      var kb = key.getBBox(), mb = mark.getBBox();
      if (Math.abs(kb.width - mb.width) > 0.5 || Math.abs(kb.height - mb.height) > 0.5) { problems.push(kind + ' size'); }
    }
  });
  plotted.forEach(function (p) {
    var kind = p.getAttribute('data-mark');
    if (!keys.some(function (k) { return k.getAttribute('data-mark') === kind; }) && problems.indexOf(kind + ': no key') < 0) {
      problems.push(kind + ': no key');
    }
  });

  say('labels: ' + labels.length +
    '; overlaps: ' + (overlaps.length ? overlaps.join(', ') : 'none') +
    '; outside: ' + (outside.length ? outside.join(', ') : 'none') +
    '; compactions: ' + rules.length + ', on a vertical drop: ' + drops +
    '; legend: ' + keys.length + ' keys, ' + (problems.length ? problems.join(', ') : 'each drawn as plotted'));
})();
