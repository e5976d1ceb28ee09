// Two record sinks fed the same lines (`--record FILE --serve PORT`: the file and the live
// monitor each get the whole record).
#pragma once
#include "record_sink.hpp"

namespace thicket {

class RecordTee final : public RecordSink {
 public:
  RecordTee(RecordSink* first, RecordSink* second) : first_(first), second_(second) {}
  void write(Kind kind, std::string_view line) override {
    if (first_) first_->write(kind, line);
    if (second_) second_->write(kind, line);
  }

 private:
  RecordSink* first_;
  RecordSink* second_;
};

}  // namespace thicket
