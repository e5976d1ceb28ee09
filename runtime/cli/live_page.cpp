// The page `--serve` answers at `/`. A stand-in until the viewer (viewer_page.hpp, `thicket
// view`) lands: it reads the same stream and shows the tick count, and exposes what it has
// ingested on window.thicketViewer for tests.
#include "live_run.hpp"

namespace thicket::cli {

std::string live_page() {
  return R"html(<!doctype html>
<html><head><meta charset="utf-8"><title>thicket live</title></head>
<body><h1>thicket live</h1><p id="status">connecting</p>
<script>
const state = window.thicketViewer = {live: true, header: null, tick: -1, ticks: 0, events: [], ended: false};
const source = new EventSource('/record');
source.onmessage = (m) => {
  const line = JSON.parse(m.data);
  if (line.format) state.header = line;
  else if (line.end) { state.ended = true; source.close(); }
  else if (line.tick !== undefined) { state.tick = line.tick; state.ticks++; state.events.push(...(line.events || [])); }
  document.getElementById('status').textContent = state.ended ? 'ended at tick ' + state.tick : 'tick ' + state.tick;
};
</script></body></html>
)html";
}

}  // namespace thicket::cli
