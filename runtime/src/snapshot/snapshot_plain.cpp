// Plain values in snapshot bytes (snapshot_plain.hpp).
#include "snapshot_plain.hpp"

#include <cmath>

namespace thicket {

void write_plain(SnapshotWriter& out, const PlainValue& v) {
  out.u8(static_cast<uint8_t>(v.tag));
  switch (v.tag) {
    case PlainTag::Nil:
    case PlainTag::False:
    case PlainTag::True: break;
    case PlainTag::Integer: out.i64(v.integer); break;
    case PlainTag::Number: out.f64(v.number); break;
    case PlainTag::String: out.str(v.text); break;
    case PlainTag::Table:
      out.u32(static_cast<uint32_t>(v.entries.size()));
      for (const auto& [k, item] : v.entries) {
        write_plain(out, k);
        write_plain(out, item);
      }
      break;
  }
}

void read_plain(SnapshotReader& in, PlainValue& out, int depth) {
  uint8_t tag = in.u8();
  if (!in.ok()) return;
  if (tag > static_cast<uint8_t>(PlainTag::Table)) {
    in.fail("a script value has an unknown type tag " + std::to_string(tag));
    return;
  }
  out.tag = static_cast<PlainTag>(tag);
  switch (out.tag) {
    case PlainTag::Nil:
    case PlainTag::False:
    case PlainTag::True: return;
    case PlainTag::Integer: out.integer = in.i64(); return;
    case PlainTag::Number: out.number = in.f64(); return;
    case PlainTag::String: out.text = in.str(); return;
    case PlainTag::Table: break;
  }
  if (depth >= kPlainMaxDepth) {
    in.fail("a script table is nested more than " + std::to_string(kPlainMaxDepth) + " deep");
    return;
  }
  uint32_t count = in.u32();
  if (count > in.remaining() / 2) {  // a key and a value take a byte each at least
    in.fail("a script table claims more entries than the snapshot holds");
    return;
  }
  // Grown as entries arrive, not sized from the count: a corrupt count costs no memory.
  out.entries.reserve(count < 64 ? count : 64);
  for (uint32_t e = 0; e < count; ++e) {
    auto& [k, v] = out.entries.emplace_back();
    read_plain(in, k, depth + 1);
    if (!in.ok()) return;
    // Lua refuses nil and NaN keys (an error, not a value): such a snapshot was not written by us.
    if (k.tag == PlainTag::Nil || k.tag == PlainTag::Table || (k.tag == PlainTag::Number && std::isnan(k.number))) {
      in.fail("a script table has a key that is nil, NaN or a table");
      return;
    }
    read_plain(in, v, depth + 1);
    if (!in.ok()) return;
  }
}

void read_script_state(SnapshotReader& in, ScriptAgentState& out, uint32_t node_count) {
  read_plain(in, out.fields);
  if (!in.ok()) return;
  if (out.fields.tag != PlainTag::Table && out.fields.tag != PlainTag::Nil) {
    in.fail("an agent's script fields are not a table");
    return;
  }
  uint32_t count = in.u32();
  if (count > in.remaining() / 5) {
    in.fail("an agent claims more script entries than the snapshot holds");
    return;
  }
  out.mem.reserve(count < 64 ? count : 64);
  for (uint32_t e = 0; e < count; ++e) {
    auto& m = out.mem.emplace_back();
    m.node = in.u32();
    uint8_t kind = in.u8();
    if (!in.ok()) return;
    if (m.node >= node_count || (kind != kMemHooks && kind != kMemTask)) {
      in.fail("an agent's script entry names node " + std::to_string(m.node) + " of " + std::to_string(node_count) +
              " with kind " + std::to_string(kind));
      return;
    }
    m.task = kind == kMemTask;
    if (!m.task) read_plain(in, m.value);
    if (m.task) {
      m.journal = in.u8();
      if (in.ok() && m.journal > kTaskJournalRestarted) {
        in.fail("a running task's journal kind is " + std::to_string(m.journal));
        return;
      }
      if (m.journal != kTaskRestart) {
        m.resumes = in.u32();
        m.journal_bytes = in.str();
      }
    }
    if (!in.ok()) return;
  }
}

}  // namespace thicket
