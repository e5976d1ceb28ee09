// world.js: draws the world to scale and the agents of one frame on a single canvas.
// Speed with 10,000 agents comes from batching: one path per team colour for the bodies,
// one for all heading ticks, one per team for the trails; the static world (map cells,
// obstacles, waypoints, navmesh, areas) is drawn once per view into a layer.
'use strict';

const TEAM_COLORS = [
  [230, 75, 60], [52, 120, 230], [46, 170, 90], [240, 170, 30], [150, 80, 200],
  [20, 180, 190], [230, 90, 170], [130, 110, 70], [110, 130, 150], [190, 200, 40],
];
const teamColor = t => TEAM_COLORS[t % TEAM_COLORS.length];
const rgb = c => `rgb(${c[0]},${c[1]},${c[2]})`;

class WorldView {
  constructor(canvas, record) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d', { alpha: false });
    this.record = record;
    this.layer = document.createElement('canvas');
    this.layerKey = '';
    this.scale = 1; // CSS pixels per metre
    this.ox = 0;    // CSS pixel of world x = bounds.x0
    this.oy = 0;
    this.dpr = 1;
    this.width = 0;
    this.height = 0;
    this.userView = false; // zoomed or panned by hand: fitting no longer overrides it
  }

  bounds() {
    const b = this.record.header && this.record.header.world.bounds;
    return b && b.length === 4 ? b : [0, 0, 100, 100];
  }

  resize() {
    const r = this.canvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(r.width)), h = Math.max(1, Math.round(r.height));
    if (w === this.width && h === this.height && dpr === this.dpr) return false;
    this.width = w; this.height = h; this.dpr = dpr;
    this.canvas.width = Math.round(w * dpr);
    this.canvas.height = Math.round(h * dpr);
    if (!this.userView) this.fit();
    this.layerKey = '';
    return true;
  }

  fit() {
    const [x0, y0, x1, y1] = this.bounds();
    const margin = 12;
    const s = Math.min((this.width - 2 * margin) / Math.max(1e-9, x1 - x0),
                       (this.height - 2 * margin) / Math.max(1e-9, y1 - y0));
    this.scale = Math.max(1e-6, s);
    this.ox = (this.width - (x1 - x0) * this.scale) / 2 - x0 * this.scale;
    this.oy = (this.height - (y1 - y0) * this.scale) / 2 - y0 * this.scale;
    this.layerKey = '';
  }

  // World y grows downwards on screen, so a grid map looks as its .map file reads.
  toScreen(x, y) { return [this.ox + x * this.scale, this.oy + y * this.scale]; }
  toWorld(sx, sy) { return [(sx - this.ox) / this.scale, (sy - this.oy) / this.scale]; }

  zoomAt(sx, sy, factor) {
    const [wx, wy] = this.toWorld(sx, sy);
    this.scale *= factor;
    this.ox = sx - wx * this.scale;
    this.oy = sy - wy * this.scale;
    this.userView = true;
    this.layerKey = '';
  }
  pan(dx, dy) {
    this.ox += dx; this.oy += dy;
    this.userView = true;
    this.layerKey = '';
  }
  centreOn(x, y) {
    const nx = this.width / 2 - x * this.scale, ny = this.height / 2 - y * this.scale;
    if (Math.abs(nx - this.ox) < 0.01 && Math.abs(ny - this.oy) < 0.01) return;
    this.ox = nx; this.oy = ny;
    this.layerKey = '';
  }

  // The static world, drawn into this.layer when the view changed.
  drawLayer() {
    const key = `${this.width}x${this.height}@${this.dpr}:${this.scale}:${this.ox}:${this.oy}`;
    if (key === this.layerKey) return;
    this.layerKey = key;
    const L = this.layer;
    L.width = this.canvas.width; L.height = this.canvas.height;
    const c = L.getContext('2d');
    c.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    c.fillStyle = '#15181d';
    c.fillRect(0, 0, this.width, this.height);
    const w = this.record.header ? this.record.header.world : {};
    const [x0, y0, x1, y1] = this.bounds();
    c.save();
    c.translate(this.ox, this.oy);
    c.scale(this.scale, this.scale);
    const px = 1 / this.scale; // one CSS pixel in metres
    c.fillStyle = '#23272e';
    c.fillRect(x0, y0, x1 - x0, y1 - y0);
    if (w.map && w.map.rows) this.drawMap(c, w.map);
    if (w.navmesh && w.navmesh.polygons) {
      c.fillStyle = 'rgba(80,140,200,0.12)';
      c.strokeStyle = 'rgba(110,160,220,0.45)';
      c.lineWidth = px;
      for (const poly of w.navmesh.polygons) {
        if (!poly.length) continue;
        c.beginPath();
        c.moveTo(poly[0][0], poly[0][1]);
        for (let i = 1; i < poly.length; i++) c.lineTo(poly[i][0], poly[i][1]);
        c.closePath();
        c.fill();
        c.stroke();
      }
    }
    c.fillStyle = '#5a6170';
    c.strokeStyle = '#7b8394';
    c.lineWidth = px;
    for (const o of w.obstacles || []) {
      c.beginPath();
      if (o.circle) c.arc(o.circle[0], o.circle[1], o.circle[2], 0, 2 * Math.PI);
      else if (o.box) c.rect(o.box[0], o.box[1], o.box[2] - o.box[0], o.box[3] - o.box[1]);
      else if (o.polygon && o.polygon.length) {
        c.moveTo(o.polygon[0][0], o.polygon[0][1]);
        for (let i = 1; i < o.polygon.length; i++) c.lineTo(o.polygon[i][0], o.polygon[i][1]);
        c.closePath();
      }
      c.fill();
      c.stroke();
    }
    for (const a of w.areas || []) {
      c.beginPath();
      if (a.circle) c.arc(a.circle[0], a.circle[1], a.circle[2], 0, 2 * Math.PI);
      else if (a.box) c.rect(a.box[0], a.box[1], a.box[2] - a.box[0], a.box[3] - a.box[1]);
      c.fillStyle = 'rgba(200,200,120,0.10)';
      c.fill();
      c.setLineDash([4 * px, 3 * px]);
      c.strokeStyle = 'rgba(220,220,140,0.7)';
      c.stroke();
      c.setLineDash([]);
    }
    if (w.waypoints && w.waypoints.points) {
      const p = w.waypoints.points;
      c.strokeStyle = 'rgba(160,200,255,0.35)';
      c.lineWidth = px;
      c.beginPath();
      for (const [a, b] of w.waypoints.edges || []) {
        if (!p[a] || !p[b]) continue;
        c.moveTo(p[a][0], p[a][1]);
        c.lineTo(p[b][0], p[b][1]);
      }
      c.stroke();
      c.fillStyle = 'rgba(160,200,255,0.7)';
      c.beginPath();
      for (const q of p) { c.moveTo(q[0] + 2 * px, q[1]); c.arc(q[0], q[1], 2 * px, 0, 2 * Math.PI); }
      c.fill();
    }
    c.restore();
    // Labels in screen space, so they stay readable at any zoom.
    c.font = '11px system-ui, sans-serif';
    c.fillStyle = 'rgba(230,230,160,0.8)';
    for (const a of w.areas || []) {
      const at = a.circle ? [a.circle[0], a.circle[1] - a.circle[2]] : a.box ? [a.box[0], a.box[1]] : null;
      if (!at) continue;
      const [sx, sy] = this.toScreen(at[0], at[1]);
      c.fillText(a.name, sx + 2, sy - 3);
    }
  }

  // Blocked cells, drawn one pixel per cell into a small canvas and scaled without smoothing.
  drawMap(c, map) {
    const rows = map.rows, h = rows.length, symbols = map.symbols && typeof map.symbols === 'object' ? map.symbols : null;
    const wd = map.width || (h ? rows[0].length : 0);
    if (!h || !wd) return;
    if (!this.mapCanvas || this.mapCanvas.source !== map) {
      const m = document.createElement('canvas');
      m.width = wd; m.height = h;
      const mc = m.getContext('2d');
      const img = mc.createImageData(wd, h);
      for (let r = 0; r < h; r++) {
        const row = rows[r];
        for (let col = 0; col < wd; col++) {
          // What the run made of each symbol (map.symbols: its cost, null for blocked: a
          // scenario's terrain makes 'T' passable at a cost); without it, as a Moving AI map
          // has them: '.', 'G' (ground) and 'S' (swamp) passable.
          const ch = col < row.length ? row[col] : '@';
          const known = symbols && Object.prototype.hasOwnProperty.call(symbols, ch);
          const blocked = known ? symbols[ch] === null : ch !== '.' && ch !== 'G' && ch !== 'S';
          const dear = known && !blocked && symbols[ch] !== 1;  // terrain that costs more (or less)
          const o = (r * wd + col) * 4;
          img.data[o] = blocked ? 74 : dear ? 38 : 35; img.data[o + 1] = blocked ? 80 : dear ? 58 : 39;
          img.data[o + 2] = blocked ? 94 : dear ? 44 : 46; img.data[o + 3] = 255;
        }
      }
      mc.putImageData(img, 0, 0);
      this.mapCanvas = m;
      m.source = map;
    }
    const cell = map.cell || 1, origin = map.origin || [0, 0];
    // Cells of a pixel or more are drawn sharp; smaller ones (a big map fitted) are averaged,
    // so a one-cell wall stays a faint line instead of vanishing with the rows skipped.
    c.imageSmoothingEnabled = cell * this.scale * (this.dpr || 1) < 1;
    c.drawImage(this.mapCanvas, origin[0], origin[1], wd * cell, h * cell);
  }

  // Draws one frame. opts: {trails: K ticks or 0, selected: id or -1, frameIndex}.
  draw(frameIndex, opts) {
    this.drawLayer();
    const ctx = this.ctx;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.drawImage(this.layer, 0, 0);
    const rec = this.record;
    const f = rec.frames[frameIndex];
    if (!f) return;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    const groups = rec.header.groups, teamOf = rec.groupTeam;
    const nTeams = Math.max(1, rec.header.teams.length);
    const s = this.scale, ox = this.ox, oy = this.oy;
    const W = this.width, H = this.height;

    this.drawPickups(frameIndex);
    if (opts.trails > 0 && frameIndex > 0) this.drawTrails(frameIndex, opts.trails, nTeams);

    const bodies = [], dead = new Path2D(), ticks = new Path2D();
    for (let t = 0; t < nTeams; t++) bodies.push(new Path2D());
    const radiusOf = groups.map(g => Math.max(1.5, (g.radius || 0.5) * s));
    for (let i = 0; i < f.n; i++) {
      const sx = ox + f.x[i] * s, sy = oy + f.y[i] * s;
      const g = f.group[i], r = radiusOf[g] || 1.5;
      if (sx < -r || sy < -r || sx > W + r || sy > H + r) continue;
      if (!f.alive[i]) {
        dead.moveTo(sx - r, sy - r); dead.lineTo(sx + r, sy + r);
        dead.moveTo(sx + r, sy - r); dead.lineTo(sx - r, sy + r);
        continue;
      }
      const path = bodies[(teamOf[g] || 0) % nTeams];
      if (r < 2.5) {
        path.rect(sx - r, sy - r, 2 * r, 2 * r);
      } else {
        path.moveTo(sx + r, sy);
        path.arc(sx, sy, r, 0, 2 * Math.PI);
        // The heading tick starts 3/4 out, so the body's centre keeps its team colour.
        const c = Math.cos(f.heading[i]), d = Math.sin(f.heading[i]);
        ticks.moveTo(sx + c * r * 0.75, sy + d * r * 0.75);
        ticks.lineTo(sx + c * r * 1.7, sy + d * r * 1.7);
      }
    }
    for (let t = 0; t < nTeams; t++) {
      ctx.fillStyle = rgb(teamColor(t));
      ctx.fill(bodies[t]);
    }
    ctx.lineWidth = 1;
    ctx.strokeStyle = 'rgba(255,255,255,0.85)';
    ctx.stroke(ticks);
    ctx.strokeStyle = 'rgba(200,200,200,0.6)';
    ctx.stroke(dead);

    if (opts.selected >= 0) {
      const i = rec.indexOf(f, opts.selected);
      if (i >= 0) {
        const [sx, sy] = this.toScreen(f.x[i], f.y[i]);
        const r = (radiusOf[f.group[i]] || 1.5) + 4;
        ctx.beginPath();
        ctx.arc(sx, sy, r, 0, 2 * Math.PI);
        ctx.lineWidth = 2;
        ctx.strokeStyle = '#ffffff';
        ctx.stroke();
      }
    }
  }

  // Pickups change over time (a take event removes one until it is back), so they are drawn
  // per frame: a taken pickup is a faint dashed ring while it is away.
  drawPickups(frameIndex) {
    const ctx = this.ctx, rec = this.record;
    ctx.font = '11px system-ui, sans-serif';
    ctx.lineWidth = 1.5;
    for (const k of rec.header.world.pickups || []) {
      const taken = rec.pickupTakenAt(k, frameIndex);
      const [sx, sy] = this.toScreen(k.x, k.y);
      ctx.beginPath();
      ctx.arc(sx, sy, Math.max((k.radius || 0.5) * this.scale, 2), 0, 2 * Math.PI);
      ctx.setLineDash(taken ? [3, 3] : []);
      ctx.strokeStyle = taken ? 'rgba(232,212,77,0.3)' : '#e8d44d';
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = taken ? 'rgba(232,212,77,0.3)' : 'rgba(232,212,77,0.85)';
      ctx.fillText(taken ? `${k.name} (taken)` : k.name, sx + Math.max((k.radius || 0.5) * this.scale, 2) + 3, sy + 4);
    }
  }

  // Every agent's positions over the last K ticks, one path per team.
  drawTrails(frameIndex, K, nTeams) {
    const rec = this.record, ctx = this.ctx;
    const f = rec.frames[frameIndex], teamOf = rec.groupTeam;
    const s = this.scale, ox = this.ox, oy = this.oy;
    // The last K ticks, not K lines (with --record-every N a line is N ticks).
    let first = rec.frameAt(f.tick - K);
    if (rec.frames[first].tick < f.tick - K) first++;
    const paths = [];
    for (let t = 0; t < nTeams; t++) paths.push(new Path2D());
    for (let i = 0; i < f.n; i++) {
      const id = f.ids[i], path = paths[(teamOf[f.group[i]] || 0) % nTeams];
      let hint = i;
      path.moveTo(ox + f.x[i] * s, oy + f.y[i] * s);
      for (let fi = frameIndex - 1; fi >= first; fi--) {
        const p = rec.frames[fi], j = rec.indexOf(p, id, hint);
        if (j < 0) break;
        hint = j;
        path.lineTo(ox + p.x[j] * s, oy + p.y[j] * s);
      }
    }
    ctx.lineWidth = 1;
    ctx.globalAlpha = 0.4;
    for (let t = 0; t < nTeams; t++) {
      ctx.strokeStyle = rgb(teamColor(t));
      ctx.stroke(paths[t]);
    }
    ctx.globalAlpha = 1;
  }

  // The agent under a CSS pixel of the canvas, or -1.
  pick(frameIndex, sx, sy) {
    const rec = this.record, f = rec.frames[frameIndex];
    if (!f) return -1;
    let best = -1, bestD = Infinity;
    const groups = rec.header.groups;
    for (let i = 0; i < f.n; i++) {
      const dx = this.ox + f.x[i] * this.scale - sx, dy = this.oy + f.y[i] * this.scale - sy;
      const d = dx * dx + dy * dy;
      const r = Math.max(1.5, ((groups[f.group[i]] || {}).radius || 0.5) * this.scale) + 4;
      if (d <= r * r && d < bestD) { bestD = d; best = f.ids[i]; }
    }
    return best;
  }
}
