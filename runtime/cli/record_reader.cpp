#include "record_reader.hpp"

#include <algorithm>

namespace thicket::cli {

RecordReader::RecordReader(const std::string& path, bool gzip) : in_(path, std::ios::binary), gzip_(gzip) {
  if (gzip_) inflate_ready_ = inflateInit2(&z_, 15 + 16) == Z_OK;  // 15 + 16: gzip's header and trailer
}

RecordReader::~RecordReader() {
  if (gzip_) inflateEnd(&z_);
}

bool RecordReader::next(std::string& out, std::size_t min_chunk) {
  out.clear();
  if (!error_.empty()) return false;
  if (!gzip_) {
    out.resize(std::max<std::size_t>(min_chunk, 1 << 20));
    in_.read(out.data(), static_cast<std::streamsize>(out.size()));
    out.resize(static_cast<std::size_t>(in_.gcount()));
    if (in_.bad()) error_ = "cannot read the file";
    return !out.empty();
  }
  if (!inflate_ready_) {
    error_ = "cannot start zlib";
    return false;
  }
  while (out.size() < min_chunk || out.empty())
    if (!inflate_some(out)) break;
  return !out.empty();
}

// Inflates one step into `out`; false at the end of the file or on an error.
bool RecordReader::inflate_some(std::string& out) {
  if (z_.avail_in == 0) {
    in_.read(input_, sizeof input_);
    const auto got = static_cast<uInt>(in_.gcount());
    if (got == 0) {
      if (in_.bad()) error_ = "cannot read the file";
      else if (in_member_) error_ = "the gzip data ends early: the file was cut short";
      return false;
    }
    z_.next_in = reinterpret_cast<Bytef*>(input_);
    z_.avail_in = got;
  }
  if (!in_member_) {
    // Between members, zero bytes are padding (gzip -d and Python's gzip skip them too);
    // anything else must start another gzip member: said so here, where zlib would call it
    // "incorrect header check".
    if (members_ > 0)
      while (z_.avail_in > 0 && *z_.next_in == 0) ++z_.next_in, --z_.avail_in;
    if (z_.avail_in == 0) return true;
    if (*z_.next_in != 0x1f) {
      error_ = members_ == 0 ? "not gzip data: the file does not start with gzip's bytes 1f 8b (a plain record "
                               "is read as such when its name does not end in .gz)"
                             : "bytes after the gzip data that are neither another gzip member nor zero padding";
      return false;
    }
    inflateReset(&z_);
    in_member_ = true;
  }
  char buffer[1 << 16];
  z_.next_out = reinterpret_cast<Bytef*>(buffer);
  z_.avail_out = sizeof buffer;
  const int rc = inflate(&z_, Z_NO_FLUSH);
  if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
    error_ = std::string("corrupt gzip data (") + (z_.msg ? z_.msg : "zlib error " + std::to_string(rc)) + ")";
    return false;
  }
  out.append(buffer, sizeof buffer - z_.avail_out);
  if (rc == Z_STREAM_END) {
    in_member_ = false;
    ++members_;
  }
  return true;
}

bool starts_as_gzip(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char magic[2] = {0, 0};
  in.read(reinterpret_cast<char*>(magic), 2);
  return in.gcount() == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

}  // namespace thicket::cli
