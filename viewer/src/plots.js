// plots.js: one uPlot chart per metric (counters and gauges over ticks), each with a
// vertical cursor at the current tick. Data are (re)set when frames arrived, at most a few
// times a second in live mode; the cursor moves with a cheap redraw.
'use strict';

class MetricPlots {
  constructor(root, record) {
    this.root = root;
    this.record = record;
    this.plots = [];
    this.currentTick = 0;
    this.dataFrames = -1;
  }

  build() {
    this.root.replaceChildren();
    this.plots = [];
    const h = this.record.header;
    if (!h) return;
    const width = Math.max(200, this.root.clientWidth - 8);
    const cursorTick = () => this.currentTick;
    h.metrics.forEach((name, m) => {
      const box = document.createElement('div');
      box.className = 'plot';
      box.dataset.metric = name;
      this.root.append(box);
      const gauge = this.record.end && (this.record.end.gauges || []).includes(name);
      const opts = {
        title: gauge ? `${name} (gauge)` : name,
        width, height: 110,
        legend: { show: false },
        cursor: { show: false },
        scales: { x: { time: false } },
        axes: [{ stroke: '#9aa3b5', grid: { stroke: '#2c313a' }, size: 28 },
               { stroke: '#9aa3b5', grid: { stroke: '#2c313a' }, size: 58 }],
        series: [{}, { label: name, stroke: rgb(teamColor(m + 1)), width: 1.5, points: { show: false } }],
        hooks: {
          draw: [u => {
            const x = u.valToPos(cursorTick(), 'x', true);
            const c = u.ctx;
            c.save();
            c.strokeStyle = '#ffffff';
            c.lineWidth = 1;
            c.beginPath();
            c.moveTo(x, u.bbox.top);
            c.lineTo(x, u.bbox.top + u.bbox.height);
            c.stroke();
            c.restore();
          }],
        },
      };
      const u = new uPlot(opts, [this.record.metricTicks.slice(), this.record.metricValues[m].slice()], box);
      this.plots.push({ name, u });
    });
    this.dataFrames = this.record.frames.length;
  }

  // New frames arrived: hand the series to the charts again.
  refreshData() {
    if (this.record.frames.length === this.dataFrames) return;
    this.dataFrames = this.record.frames.length;
    this.plots.forEach((p, m) => p.u.setData([this.record.metricTicks.slice(), this.record.metricValues[m].slice()]));
  }

  setTick(tick) {
    if (tick === this.currentTick) return;
    this.currentTick = tick;
    for (const p of this.plots) p.u.redraw(false, false);
  }

  // For tests: what each chart holds.
  data() {
    return this.plots.map(p => ({ name: p.name, ticks: Array.from(p.u.data[0]), values: Array.from(p.u.data[1]) }));
  }
}
