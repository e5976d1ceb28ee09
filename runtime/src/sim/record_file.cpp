// Record files: plain JSON lines through a large stdio buffer, or gzip through zlib's deflate
// with a gzip wrapper (so `zcat` reads it). Lines are gathered into one buffer and compressed
// in large blocks: deflate's cost per call is then negligible.
#include "record_file.hpp"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace thicket {
namespace {

constexpr size_t kBuffer = size_t(1) << 20;

class PlainFile final : public RecordFile {
 public:
  explicit PlainFile(std::FILE* f) : f_(f) { std::setvbuf(f_, nullptr, _IOFBF, kBuffer); }
  ~PlainFile() override {
    std::string ignored;
    close(ignored);
  }
  void write(Kind, std::string_view line) override {
    if (!f_) return;
    if (std::fwrite(line.data(), 1, line.size(), f_) != line.size() || std::fputc('\n', f_) == EOF) failed_ = true;
  }
  bool close(std::string& error) override {
    if (!f_) return !failed_;
    if (std::fclose(f_) != 0) failed_ = true;
    f_ = nullptr;
    if (failed_) error = "writing the record failed: " + std::string(std::strerror(errno ? errno : EIO));
    return !failed_;
  }

 private:
  std::FILE* f_;
  bool failed_ = false;
};

class GzipFile final : public RecordFile {
 public:
  GzipFile(std::FILE* f, int level) : f_(f) {
    // windowBits 15 + 16: a gzip header and trailer around the deflate stream.
    ok_ = deflateInit2(&z_, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
    in_.reserve(kBuffer);
    out_.resize(kBuffer);
  }
  ~GzipFile() override {
    std::string ignored;
    close(ignored);
  }
  bool ok() const { return ok_; }
  void write(Kind, std::string_view line) override {
    if (!f_) return;
    in_.append(line);
    in_.push_back('\n');
    if (in_.size() >= kBuffer) compress(Z_NO_FLUSH);
  }
  bool close(std::string& error) override {
    if (!f_) return !failed_;
    compress(Z_FINISH);
    deflateEnd(&z_);
    if (std::fclose(f_) != 0) failed_ = true;
    f_ = nullptr;
    if (failed_) error = "writing the record failed: " + std::string(std::strerror(errno ? errno : EIO));
    return !failed_;
  }

 private:
  void compress(int flush) {
    z_.next_in = reinterpret_cast<Bytef*>(in_.data());
    z_.avail_in = static_cast<uInt>(in_.size());
    int rc;
    do {
      z_.next_out = reinterpret_cast<Bytef*>(out_.data());
      z_.avail_out = static_cast<uInt>(out_.size());
      rc = deflate(&z_, flush);
      if (rc == Z_STREAM_ERROR) {
        failed_ = true;
        break;
      }
      size_t have = out_.size() - z_.avail_out;
      if (have && std::fwrite(out_.data(), 1, have, f_) != have) failed_ = true;
    } while (z_.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    in_.clear();
  }

  std::FILE* f_;
  z_stream z_{};
  bool ok_ = false, failed_ = false;
  std::string in_;
  std::string out_;
};

}  // namespace

std::string record_file_name_error(const std::string& path) {
  if (file_name_ends_with(path, ".jsonl") || file_name_ends_with(path, ".jsonl.gz") || path.rfind("/dev/", 0) == 0)
    return {};
  return "--record writes JSON lines, plain or gzip-compressed as its extension says: it needs FILE.jsonl or FILE.jsonl.gz, got '" +
         path + "'";
}

std::unique_ptr<RecordFile> RecordFile::open(const std::string& path, std::string& error, int gzip_level) {
  error = record_file_name_error(path);
  if (!error.empty()) return nullptr;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    error = "cannot write the record file '" + path + "': " + std::strerror(errno);
    return nullptr;
  }
  if (!file_name_ends_with(path, ".gz")) return std::make_unique<PlainFile>(f);
  auto gz = std::make_unique<GzipFile>(f, gzip_level);
  if (!gz->ok()) {
    error = "cannot start gzip compression for '" + path + "'";
    return nullptr;
  }
  return gz;
}

}  // namespace thicket
