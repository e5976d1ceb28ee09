// The viewer's page (issue 14): one self-contained HTML document that draws a record
// (docs/record-format.md). `thicket view` writes it with the record embedded; the live
// monitor (--serve) serves it at `/` in live mode.
#pragma once
#include <string>
#include <string_view>

namespace thicket::cli {

// The whole page: its CSS, uPlot (embedded at build time from viewer/node_modules) and the
// viewer's scripts, with nothing fetched from the network.
//
// data_script: JavaScript run before the viewer's code, which sets the record to replay:
// `thicketRecordGzipBase64 = "...";` (the record's JSONL, gzip-compressed, base64), as
// `thicket view` writes (record_data_script below). Put in a <script> element as is: it must
// not hold "</script". Empty in live mode.
//
// live: the page connects `new EventSource('/record')`; each message's data is one record
// line exactly as in the file (the header first, then tick and brains lines, then the end
// line). The page ingests them as they come and, while its "live" toggle is on (the
// default), shows the newest tick. Messages that arrive before the header are ignored.
std::string viewer_page(std::string_view data_script, bool live);

// The data_script for a record whose JSONL text, gzip-compressed, is `gzip_bytes`.
std::string record_data_script(std::string_view gzip_bytes);

}  // namespace thicket::cli
