// thicket view RECORD [-o OUT.html]
//
// Reads a record (RECORD.jsonl, or RECORD.jsonl.gz), checks every line against
// docs/record-format.md and writes one HTML file that replays it offline: the viewer's page
// (viewer_page.hpp) with the record embedded as gzip + base64, which the page inflates with
// the browser's DecompressionStream. gzip keeps 10,000 agents x 600 ticks practical: the
// record's text compresses several times over, and the page reads it as it inflates.
// Without -o the replay goes beside the record: RECORD less .jsonl / .jsonl.gz, plus .html.
#include "view_command.hpp"
#include "cli_args.hpp"
#include "output_target.hpp"  // named_with_extension, same_file, first_unwritable

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>
#include <iostream>
#include <string>
#include <vector>

#include "record_check.hpp"
#include "record_reader.hpp"
#include "plain_file.hpp"  // not_plain_file
#include "viewer_page.hpp"
#include "suggest.hpp"  // did_you_mean

namespace thicket::cli {

namespace {

constexpr int kExitOk = 0, kExitLoad = 2, kExitUsage = 64;

int usage_error(const char* usage, const std::string& message) {
  std::cerr << "thicket: " << message << "\n" << usage;
  return kExitUsage;
}

// gzip-compresses what it is given, into one gzip member.
class Gzipper {
 public:
  Gzipper() {
    // 15 + 16: a gzip header and trailer around the deflate stream.
    ok_ = deflateInit2(&z_, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
  }
  ~Gzipper() { deflateEnd(&z_); }
  Gzipper(const Gzipper&) = delete;
  Gzipper& operator=(const Gzipper&) = delete;

  bool add(std::string_view text) { return run(text, Z_NO_FLUSH); }
  bool finish() { return run({}, Z_FINISH); }
  const std::string& bytes() const { return out_; }

 private:
  bool run(std::string_view text, int flush) {
    if (!ok_) return false;
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z_.avail_in = static_cast<uInt>(text.size());
    char buffer[1 << 16];
    int rc;
    do {
      z_.next_out = reinterpret_cast<Bytef*>(buffer);
      z_.avail_out = sizeof buffer;
      rc = deflate(&z_, flush);
      if (rc == Z_STREAM_ERROR) return ok_ = false;
      out_.append(buffer, sizeof buffer - z_.avail_out);
    } while (z_.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    return true;
  }
  z_stream z_{};
  bool ok_ = false;
  std::string out_;
};

std::string megabytes(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return text;
}

}  // namespace

int view_command(int argc, char** argv, const char* usage) {
  std::string record, out;
  for (int i = 2; i < argc; ++i) {
    std::optional<std::string> joined;
    const std::string a = option_name(argv[i], joined);
    if (a == "-o" || a == "--out") {
      const std::optional<std::string> value = option_value(joined, i, argc, argv);
      if (!value) return usage_error(usage, a + " needs a file name (OUT.html)");
      out = *value;
      if (!named_with_extension(out, ".html") && out.rfind("/dev/", 0) != 0)
        return usage_error(usage, "thicket view writes HTML: -o needs FILE.html, got '" + out + "'");
    } else if (a.size() > 1 && a[0] == '-') {
      return usage_error(usage, "unknown option '" + a + "' of 'thicket view'" + did_you_mean(a, {"-o"}) +
                                " (it takes -o OUT.html)");
    } else if (!record.empty()) {
      return usage_error(usage, "'thicket view' takes one RECORD");
    } else {
      record = a;
    }
  }
  if (record.empty()) return usage_error(usage, "missing RECORD (thicket view RECORD.jsonl [-o OUT.html])");
  if (std::error_code ec; std::filesystem::is_directory(record, ec)) {
    std::cerr << record << ": error: a folder; thicket view reads one record file, RECORD.jsonl or RECORD.jsonl.gz, as "
              << "`thicket run SCENARIO --record FILE.jsonl[.gz]` writes it\n";
    return kExitLoad;
  }
  const bool gzip = named_with_extension(record, ".jsonl.gz");
  if (!gzip && !named_with_extension(record, ".jsonl"))
    return usage_error(usage, "thicket view reads a record: RECORD.jsonl or RECORD.jsonl.gz, got '" + record + "'");
  if (out.empty()) out = record.substr(0, record.size() - (gzip ? 9 : 6)) + ".html";
  if (same_file(out, record))  // a link named .html to the record: writing the page would replace it
    return usage_error(usage, "'" + out + "' is given as -o but the command reads it" +
                                  (out == record ? std::string() : " (as '" + record + "')") + ": it would be overwritten");

  // (A missing record is said by the open below, with the system's words.)
  if (const char* problem = not_plain_file(record, /*missing_ok=*/true); *problem) {
    std::cerr << record << ": error: cannot open the record: " << problem << "\n";
    return kExitLoad;
  }
  {
    // Bytes that are no record's, said as what they are (both were "its first line is not JSON").
    std::ifstream head(record, std::ios::binary);
    char magic[8] = {};
    head.read(magic, sizeof magic);
    const std::string_view start(magic, static_cast<size_t>(head.gcount()));
    if (start == "THKTSIM\n") {
      std::cerr << record << ": error: this is a checkpoint (a saved run), not a record: go on from it with 'thicket run "
                << "SCENARIO --resume " << record << " --record FILE.jsonl', and view that\n";
      return kExitLoad;
    }
    if (!gzip && start.size() >= 2 && static_cast<unsigned char>(start[0]) == 0x1f &&
        static_cast<unsigned char>(start[1]) == 0x8b) {
      std::cerr << record << ": error: this is gzip data: a compressed record is named RECORD.jsonl.gz\n";
      return kExitLoad;
    }
  }
  errno = 0;
  RecordReader reader(record, gzip);
  if (!reader.opened()) {
    const int why = errno;
    std::cerr << record << ": error: cannot open the record" << (why ? std::string(": ") + std::strerror(why) : "")
              << "\n";
    return kExitLoad;
  }
  RecordCheck check;
  // A plain record is compressed as it is read. A gzip one of one member (as thicket writes
  // it) goes into the page as it is, which saves most of the time; one of several members
  // (`cat a.gz b.gz`), which the browser's DecompressionStream does not take, is compressed
  // anew in a second pass.
  Gzipper gzipped;
  auto fail = [&](int line, const std::string& why) {
    std::cerr << record << ":" << line << ": error: " << why << "\n";
    return kExitLoad;
  };
  // A line that is wrong in a gzip record may be damaged gzip data, which gzip's check at the
  // end of the member tells: the rest is read, and corrupt data is said as such (a flipped byte
  // was said "this line is not JSON").
  auto line_fail = [&](int line, const std::string& why) {
    if (gzip) {
      std::string rest;
      while (reader.next(rest)) {
      }
      if (!reader.error().empty()) return fail(line, reader.error() + ", which this line's error comes from: " + why);
    }
    return fail(line, why);
  };
  std::string chunk, pending;  // pending: the start of a line whose newline has not come yet
  uint64_t plain_bytes = 0;    // the record's bytes, uncompressed
  while (reader.next(chunk)) {
    plain_bytes += chunk.size();
    std::size_t start = 0, nl;
    while ((nl = chunk.find('\n', start)) != std::string::npos) {
      std::string_view piece(chunk.data() + start, nl - start);
      std::string joined;
      if (!pending.empty()) {
        joined = pending;
        joined.append(piece);
        piece = joined;
        pending.clear();
      }
      if (std::string why = check.line(piece); !why.empty()) return line_fail(check.lines(), why);
      start = nl + 1;
    }
    pending.append(chunk, start);
    if (pending.size() > kMaxRecordLine) return fail(check.lines() + 1, kRecordLineTooLong);
    if (!gzip) gzipped.add(chunk);
  }
  if (!reader.error().empty()) return fail(check.lines() + 1, reader.error());
  if (!pending.empty())
    if (std::string why = check.line(pending, true); !why.empty()) return line_fail(check.lines(), why);
  if (std::string why = check.finish(); !why.empty()) return fail(std::max(1, check.lines()), why);

  std::string embedded;
  if (gzip && reader.gzip_members() == 1) {
    std::ifstream raw(record, std::ios::binary);
    embedded.assign(std::istreambuf_iterator<char>(raw), std::istreambuf_iterator<char>());
  }
  // A member followed by bytes of its own (zero padding, which gzip -d skips) is compressed
  // anew too: the browser refuses "junk after the end" (the page said it cannot read the
  // record). The file ends with its member's trailer: its last 4 bytes, the size mod 2^32.
  const auto ends_with_member = [&] {
    if (embedded.size() < 18) return false;
    uint32_t isize = 0;
    for (int k = 0; k < 4; ++k)
      isize |= static_cast<uint32_t>(static_cast<unsigned char>(embedded[embedded.size() - 4 + k])) << (8 * k);
    return isize == static_cast<uint32_t>(plain_bytes);
  };
  if (!embedded.empty() && !ends_with_member()) embedded.clear();
  if (embedded.empty()) {
    if (gzip) {
      RecordReader again(record, true);
      while (again.next(chunk)) gzipped.add(chunk);
    }
    if (!gzipped.finish()) {
      std::cerr << "thicket: cannot compress the record (zlib)\n";
      return kExitLoad;
    }
    embedded = gzipped.bytes();
  }

  const std::string page = viewer_page(record_data_script(embedded), false);
  // An output that cannot be opened is said with the system's reason, as run's outputs are
  // (exit 64); looked at only now, so a record that fails its check leaves OUT as it was.
  if (first_unwritable({out}) == 0) return cannot_write("output", out);
  std::ofstream file(out, std::ios::binary);
  file.write(page.data(), static_cast<std::streamsize>(page.size()));
  file.close();
  if (!file) {
    std::cerr << "thicket: the output file '" << out << "' could not be written in full (a full disk?)\n";
    return kExitLoad;
  }
  // The run's ticks, and the lines that hold them (tick 0's too; one per N with --record-every
  // N): "43 ticks" was said of a 300-tick run recorded every 7.
  std::cout << "thicket: wrote " << out << " (" << check.run_ticks() << " ticks";
  if (check.ticks() != check.run_ticks()) std::cout << " in " << check.ticks() << " tick lines";
  std::cout << ", up to " << check.max_agents() << " agent(s), " << megabytes(page.size()) << ")\n";
  return kExitOk;
}

}  // namespace thicket::cli
