// record.js: a record (docs/record-format.md) held in typed arrays, one frame per tick line.
// The replay and the live monitor feed it the same lines through ingestLine(), so the page
// shows exactly what a file would hold. 10,000 agents x 600 ticks stay well under a gigabyte
// because no per-agent JavaScript object is kept: columns per frame, node strings interned.
'use strict';

const STATUS_NAMES = ['invalid', 'running', 'success', 'failure'];
const STATUS_INDEX = { invalid: 0, running: 1, success: 2, failure: 3 };

class RecordData {
  constructor() {
    this.header = null;
    this.frames = [];        // one per tick line, in file order (ticks ascend)
    this.brainVersions = []; // [{from: tick, brains}], the header's first
    this.metricTicks = [];   // x of the metric series
    this.metricValues = [];  // [metric][frame]
    this.end = null;         // the end line, once it came
    this.strings = [];       // interned node strings
    this.stringIndex = new Map();
    this.groupTeam = new Uint32Array(0);
    this.pickupTakes = new Map(); // pickup name -> the ticks it was taken at, ascending
    this.eventsOf = new Map();    // agent id -> [frame index, event index, ...] in record order
    this.listeners = [];
    this.lineCount = 0;
  }

  // Adds one record line (without its newline). Returns what it was: 'header', 'tick',
  // 'brains', 'end' or 'ignored' (a blank line, or a line before the header).
  ingestLine(text) {
    if (text.length === 0 || /^\s*$/.test(text)) return 'ignored';
    const line = JSON.parse(text);
    this.lineCount++;
    // The header is the line with "format" and none of the other lines' own fields: a "format"
    // on a tick, brains or end line is a field the page does not know, ignored as the format
    // says (it was taken for a new header, and the record started again from there).
    if (line.format !== undefined && line.tick === undefined && line.brains_at === undefined && line.end === undefined) {
      if (line.format !== 'thicket-record') throw new Error('not a thicket record');
      if (this.header) this.reset();
      this.setHeader(line);
      this.emit('header');
      return 'header';
    }
    if (!this.header) return 'ignored';
    if (line.tick !== undefined) {
      this.addTick(line);
      this.emit('tick');
      return 'tick';
    }
    if (line.brains_at !== undefined) {
      this.brainVersions.push({ from: line.brains_at, brains: line.brains });
      this.emit('brains');
      return 'brains';
    }
    if (line.end) {
      this.end = line;
      this.emit('end');
      return 'end';
    }
    return 'ignored';
  }

  reset() {
    const listeners = this.listeners;
    Object.assign(this, new RecordData());
    this.listeners = listeners;
  }

  on(fn) { this.listeners.push(fn); }
  emit(what) { for (const fn of this.listeners) fn(what); }

  setHeader(h) {
    h.world = h.world || {};
    h.teams = h.teams || [];
    h.groups = h.groups || [];
    h.brains = h.brains || [];
    h.keys = h.keys || [];
    h.metrics = h.metrics || [];
    this.header = h;
    this.brainVersions = [{ from: -Infinity, brains: h.brains }];
    this.groupTeam = new Uint32Array(h.groups.map(g => g.team >>> 0));
    this.metricValues = h.metrics.map(() => []);
  }

  intern(s) {
    let i = this.stringIndex.get(s);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(s);
      this.stringIndex.set(s, i);
    }
    return i;
  }

  addTick(line) {
    const agents = line.agents || [];
    const n = agents.length, K = this.header.keys.length;
    const f = {
      tick: line.tick,
      n,
      ids: new Uint32Array(n), // 1 .. 4294967294 (an Int32Array wrapped ids past 2^31)
      x: new Float32Array(n),
      y: new Float32Array(n),
      heading: new Float32Array(n),
      group: new Uint32Array(n), // (a Uint16Array wrapped group 65536 to 0)
      alive: new Uint8Array(n),
      status: new Uint8Array(n),
      nodes: new Uint32Array(n),
      keyNumbers: K ? new Float64Array(n * K) : null, // NaN where the value is not a number
      keyOthers: null,                                // Map(i*K+k -> value) for the rest
      events: line.events || [],
      brains: this.brainVersions.length - 1,
      sortedIds: true,
      idMap: null,
    };
    let previous = -Infinity;
    for (let i = 0; i < n; i++) {
      const a = agents[i];
      f.ids[i] = a[0];
      if (a[0] <= previous) f.sortedIds = false;
      previous = a[0];
      f.x[i] = a[1];
      f.y[i] = a[2];
      f.heading[i] = a[3];
      f.group[i] = a[4];
      f.alive[i] = a[5];
      f.status[i] = STATUS_INDEX[a[6]] || 0;
      f.nodes[i] = this.intern(a[7] || '');
      if (K) {
        const keys = a[8] || [];
        for (let k = 0; k < K; k++) {
          const v = keys[k];
          if (typeof v === 'number') {
            f.keyNumbers[i * K + k] = v;
          } else {
            f.keyNumbers[i * K + k] = NaN;
            if (v !== null && v !== undefined) {
              if (!f.keyOthers) f.keyOthers = new Map();
              f.keyOthers.set(i * K + k, v);
            }
          }
        }
      }
    }
    const fi = this.frames.length;
    f.events.forEach((e, j) => {
      if (!Array.isArray(e)) return;
      if (e[0] === 'take') {
        let takes = this.pickupTakes.get(e[2]);
        if (!takes) this.pickupTakes.set(e[2], takes = []);
        takes.push(e[1]);
      }
      for (const id of RecordData.eventAgents(e)) {
        let list = this.eventsOf.get(id);
        if (!list) this.eventsOf.set(id, list = []);
        if (list.length < 2 || list[list.length - 2] !== fi || list[list.length - 1] !== j) list.push(fi, j);
      }
    });
    this.frames.push(f);
    this.metricTicks.push(line.tick);
    const m = line.metrics || [];
    for (let j = 0; j < this.metricValues.length; j++) {
      const v = m[j];
      this.metricValues[j].push(typeof v === 'number' ? v : null);
    }
  }

  // The index of agent `id` in frame f, or -1. `hint`: where it was in a neighbouring frame.
  indexOf(f, id, hint) {
    if (hint !== undefined && hint >= 0 && hint < f.n && f.ids[hint] === id) return hint;
    if (f.sortedIds) {
      let lo = 0, hi = f.n - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1, v = f.ids[mid];
        if (v === id) return mid;
        if (v < id) lo = mid + 1; else hi = mid - 1;
      }
      return -1;
    }
    if (!f.idMap) {
      f.idMap = new Map();
      for (let i = 0; i < f.n; i++) f.idMap.set(f.ids[i], i);
    }
    const i = f.idMap.get(id);
    return i === undefined ? -1 : i;
  }

  // The frame index whose tick is the last <= tick (0 when tick is before the first).
  frameAt(tick) {
    let lo = 0, hi = this.frames.length - 1, best = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.frames[mid].tick <= tick) { best = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return best;
  }

  brainsOf(frame) { return this.brainVersions[frame.brains].brains; }

  // Whether pickup k (a header pickup) is away at frame index fi: taken at a tick T <= the
  // frame's, and not back yet (back at T + respawn_ticks; a record without respawn_ticks
  // never says it is back). It was shown taken for the rest of the run after its first take.
  pickupTakenAt(k, fi) {
    const takes = this.pickupTakes.get(k.name), f = this.frames[fi];
    if (!takes || !f) return false;
    let last = -1;
    for (let lo = 0, hi = takes.length - 1; lo <= hi;) {
      const mid = (lo + hi) >> 1;
      if (takes[mid] <= f.tick) { last = mid; lo = mid + 1; } else hi = mid - 1;
    }
    if (last < 0) return false;
    const away = typeof k.respawn_ticks === 'number' ? k.respawn_ticks : Infinity;
    return f.tick < takes[last] + away;
  }

  // How many ticks the run has: the end line's, else up to the last tick line.
  runTicks() {
    if (this.end && typeof this.end.ticks === 'number') return this.end.ticks;
    const n = this.frames.length;
    return n ? this.frames[n - 1].tick + 1 : 0;
  }

  keyValue(f, i, k) {
    const K = this.header.keys.length;
    const v = f.keyNumbers[i * K + k];
    if (!Number.isNaN(v)) return v;
    if (f.keyOthers && f.keyOthers.has(i * K + k)) return f.keyOthers.get(i * K + k);
    return null;
  }

  // The agent ids an event names (for "its last events").
  static eventAgents(e) {
    switch (e[0]) {
      case 'damage': case 'signal': return [e[2], e[3]];
      case 'take': return [e[3]];
      case 'reload': case 'reload_failed': return [];
      case 'percept': return e[5] === 'agent' ? [e[2], e[6]] : [e[2]];
      default: return [e[2]];
    }
  }

  // Up to `count` events naming agent `id`, newest first, up to frame index `upTo`.
  lastEvents(id, upTo, count) {
    const list = this.eventsOf.get(id), out = [];
    if (!list) return out;
    // The last entry at or before frame upTo (entries are in frame order).
    let lo = 0, hi = list.length / 2 - 1, last = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (list[2 * mid] <= upTo) { last = mid; lo = mid + 1; } else hi = mid - 1;
    }
    for (let k = last; k >= 0 && out.length < count; k--) out.push(this.frames[list[2 * k]].events[list[2 * k + 1]]);
    return out;
  }
}

// Splits a stream of text into lines and feeds them to `record`; `onError(lineNumber, message)`.
class LineFeeder {
  constructor(record, onError) {
    this.record = record;
    this.onError = onError;
    this.parts = [];
    this.lineNumber = 0;
  }
  // A line's pieces wait in `parts` until its newline comes; each chunk is searched once (a
  // 67 MB header line, the rest joined to every chunk and searched again, took 48 s).
  push(chunk) {
    let start = 0, nl;
    while ((nl = chunk.indexOf('\n', start)) !== -1) {
      const piece = chunk.substring(start, nl);
      if (this.parts.length) {
        this.parts.push(piece);
        this.one(this.parts.join(''));
        this.parts = [];
      } else this.one(piece);
      start = nl + 1;
    }
    if (start < chunk.length) this.parts.push(chunk.substring(start));
  }
  finish() {
    if (this.parts.length) this.one(this.parts.join(''));
    this.parts = [];
  }
  one(line) {
    this.lineNumber++;
    try {
      this.record.ingestLine(line);
    } catch (e) {
      this.onError(this.lineNumber, e.message);
    }
  }
}

// Decodes the replay's embedded record (gzip, base64) and feeds it, chunk by chunk.
async function loadEmbeddedRecord(base64, record, onError, onProgress) {
  // atob in slices: one call on a 100 MB string would hold two copies of it at once.
  const slice = 4 * 1024 * 1024; // a multiple of 4 base64 digits
  const parts = [];
  for (let i = 0; i < base64.length; i += slice) {
    const bin = atob(base64.substring(i, i + slice));
    const bytes = new Uint8Array(bin.length);
    for (let j = 0; j < bin.length; j++) bytes[j] = bin.charCodeAt(j);
    parts.push(bytes);
  }
  const stream = new Blob(parts).stream()
    .pipeThrough(new DecompressionStream('gzip'))
    .pipeThrough(new TextDecoderStream());
  const reader = stream.getReader();
  const feeder = new LineFeeder(record, onError);
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    feeder.push(value);
    if (onProgress) onProgress(record.frames.length);
  }
  feeder.finish();
}
