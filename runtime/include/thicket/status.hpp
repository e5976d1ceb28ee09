// Statuses of the tick contract (SPEC 3.1).
#pragma once
#include <cstdint>
#include <string_view>

namespace thicket {

enum class Status : uint8_t { Invalid = 0, Success, Failure, Running, Aborted };

constexpr std::string_view status_name(Status s) {
  switch (s) {
    case Status::Invalid: return "invalid";
    case Status::Success: return "success";
    case Status::Failure: return "failure";
    case Status::Running: return "running";
    case Status::Aborted: return "aborted";
  }
  return "invalid";
}

}  // namespace thicket
