// The native `check:` expression language (SPEC 3.4): `condition: {check: "health < 30
// and not alert"}`. An expression over the agent's declared blackboard keys is type-checked
// and compiled once at load into a flat postfix array of fixed-size instructions; each tick
// evaluates that array on a small value stack on the C++ stack, with no allocation, string
// lookup, exception or virtual call.
//
// Grammar, loosest first (a comment heads each parse function in expr.cpp):
//   or_expr   := and_expr ('or' and_expr)*
//   and_expr  := not_expr ('and' not_expr)*
//   not_expr  := 'not' not_expr | cmp_expr
//   cmp_expr  := sum (('==' | '!=' | '<' | '<=' | '>' | '>=') sum)?     -- never chained
//   sum       := product (('+' | '-') product)*
//   product   := unary (('*' | '/' | '%') unary)*
//   unary     := '-' unary | primary
//   primary   := NUMBER | STRING | 'true' | 'false' | KEY | '(' or_expr ')'
//   NUMBER    := digits ['.' [digits]] [('e'|'E') ['+'|'-'] digits]  |  '.' digits [exponent]
//   STRING    := "..." | '...'   with the escapes \" \' \\ only
//   KEY       := [A-Za-z_][A-Za-z0-9_]*, a declared blackboard key that is not a keyword
//                (and or not true false)
//
// Types: number and integer keys and numeric literals are all "number"; booleans; strings.
// `and` `or` `not` take booleans; `+ - * / %` and unary `-` take numbers; `< <= > >=` take
// two numbers or two strings; `== !=` take two of the same type; the whole expression must
// be a boolean. A key of type `any` cannot be used.
//
// Semantics the spec leaves open (documented here, tested in tests/unit/compiler/test_expr.cpp):
//   - All arithmetic and comparison of numbers is in double precision; an integer key is
//     converted to double when read (exact up to 2^53).
//   - Division follows IEEE 754: x / 0 is +inf or -inf, 0 / 0 is nan. Every comparison with
//     nan is false, except `!=`, which is true.
//   - `a % b` is the floored modulo of Lua: a - floor(a / b) * b, so the result takes the
//     sign of b (-1 % 3 == 2, 1 % -3 == -2); x % 0 is nan.
//   - `and` and `or` short-circuit: the right side is not evaluated when the left decides.
//   - Strings compare for equality by interned id; `<` and friends compare their bytes
//     lexicographically (unsigned), so "B" < "a".
//   - The value stack holds CompiledExpr::kMaxStack values; an expression that needs more
//     (a right-leaning chain such as `1 + (2 + (3 + ...))`) is a compile error, as is one
//     nested deeper than kMaxNesting parentheses / prefix operators.
//   - `&&`, `||`, `!` and `=` are errors that name the operator to use; they are read as
//     `and`, `or`, `not` and `==` so the rest of the expression is still checked.
//   - Errors: every lexical error (bad character, unterminated string, bad escape, malformed
//     number) and every name and type error is reported; parsing stops at the first syntax
//     error (a missing value, a missing ')', trailing input). Errors are sorted by column.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "string_table.hpp"
#include "thicket/value.hpp"

namespace thicket {

// One declared blackboard key, as the check compiler sees it.
struct ExprKey {
  std::string name;
  ValueType type;
  uint32_t slot;  // index into the agent's Slot array
  bool broken = false;  // its declaration has an error, already reported: reading it adds none
};

// One compile error. column: 0-based byte offset into the expression's source string.
struct ExprError {
  uint32_t column;
  std::string message;
};

// Every instruction of the expression machine: X(name, stack effect, disassembly word).
// Stack values are Slots: numbers in `num`; booleans (0/1) and string ids in `i`.
// A null word means the disassembler prints the instruction's source text (a key or literal).
#define THICKET_EXPR_OPS(X)                                                              \
  X(PushNum, +1, nullptr)  /* push the constant `num` */                                 \
  X(PushBool, +1, nullptr) /* push the constant `arg` (0 or 1) */                        \
  X(PushStr, +1, nullptr)  /* push the string id `arg` */                                \
  X(LoadNum, +1, nullptr)  /* push slots[arg].num */                                     \
  X(LoadInt, +1, nullptr)  /* push slots[arg].i converted to double */                   \
  X(LoadBool, +1, nullptr) /* push slots[arg].i != 0 */                                  \
  X(LoadStr, +1, nullptr)  /* push slots[arg].str */                                     \
  X(Neg, 0, "neg")         /* -a */                                                      \
  X(Add, -1, "+")          /* a + b */                                                   \
  X(Sub, -1, "-")          /* a - b */                                                   \
  X(Mul, -1, "*")          /* a * b */                                                   \
  X(Div, -1, "/")          /* a / b, IEEE */                                             \
  X(Mod, -1, "%")          /* a - floor(a / b) * b */                                    \
  X(Not, 0, "not")         /* boolean not */                                             \
  X(EqNum, -1, "==")       /* numbers equal */                                           \
  X(NeNum, -1, "!=")       /* numbers differ (true when either is nan) */                \
  X(LtNum, -1, "<")                                                                      \
  X(LeNum, -1, "<=")                                                                     \
  X(GtNum, -1, ">")                                                                      \
  X(GeNum, -1, ">=")                                                                     \
  X(EqId, -1, "==")        /* booleans or string ids equal */                            \
  X(NeId, -1, "!=")        /* booleans or string ids differ */                           \
  X(LtStr, -1, "<")        /* strings, bytewise */                                       \
  X(LeStr, -1, "<=")                                                                     \
  X(GtStr, -1, ">")                                                                      \
  X(GeStr, -1, ">=")                                                                     \
  X(AndJump, -1, "and")    /* top false: jump to `arg`, keeping it; else pop it */       \
  X(OrJump, -1, "or")      /* top true: jump to `arg`, keeping it; else pop it */

enum class ExprOp : uint8_t {
#define THICKET_EXPR_ENUM(name, effect, word) name,
  THICKET_EXPR_OPS(THICKET_EXPR_ENUM)
#undef THICKET_EXPR_ENUM
};

// One instruction. Jumps only go forward, to an index in (own index, code size].
struct ExprInstr {
  ExprOp op;
  uint32_t arg;  // slot index, string id, boolean constant or jump target
  double num;    // PushNum's constant
};
static_assert(sizeof(ExprInstr) == 16);

// A compiled check expression: a flat instruction array plus, beside it, the source text and
// each instruction's source span (debug info for `disassemble`, never read by eval).
// Copyable; holds no pointer into any other object. The string ids it holds are ids in the
// StringTable it was compiled against, which eval must be given.
class CompiledExpr {
 public:
  static constexpr size_t kMaxStack = 16;    // values on the evaluation stack
  static constexpr size_t kMaxNesting = 64;  // parentheses and prefix operators, nested

  // Where an instruction came from: bytes [begin, begin + size) of source().
  struct Span {
    uint32_t begin, size;
  };

  CompiledExpr();  // the constant `false`

  // Evaluates against one agent's blackboard slots; returns the boolean result.
  // Never allocates, throws or looks up a string by name.
  bool eval(const Slot* slots, const StringTable& strings) const noexcept;
  // The same for an expression compiled to another type (a bt_script's right side): a number
  // in `num`, a boolean (0/1) in `i`, a string's id in `i`.
  Slot value(const Slot* slots, const StringTable& strings) const noexcept;

  // The postfix form on one line, e.g. "health 30 < alert not and": keys and literals as
  // written, operators by symbol, unary minus as "neg", `and`/`or` after their right side.
  std::string disassemble() const;

  std::string_view source() const { return source_; }
  std::span<const ExprInstr> code() const { return code_; }
  std::span<const Span> spans() const { return spans_; }  // parallel to code()
  // The slots the expression reads, ascending, each once (for abort re-checks and tooling).
  std::span<const uint32_t> slots_read() const { return slots_read_; }

 private:
  CompiledExpr(std::vector<ExprInstr> code, std::vector<Span> spans, std::string source,
               std::vector<uint32_t> slots_read);
  friend std::optional<CompiledExpr> compile_expr(std::string_view, const std::vector<ExprKey>&,
                                                  StringTable&, std::vector<ExprError>&, ValueType);

  std::vector<ExprInstr> code_;
  std::vector<Span> spans_;  // parallel to code_
  std::string source_;
  std::vector<uint32_t> slots_read_;
};

// Compiles src against the declared keys. String literals are interned into `strings` (only
// when compilation succeeds). On errors, returns std::nullopt and appends all errors found,
// sorted by column, to `errors`. `want`: the type the whole expression must have (a check's is
// boolean; a bt_script's right side has its key's: number for number and integer keys).
std::optional<CompiledExpr> compile_expr(std::string_view src, const std::vector<ExprKey>& keys,
                                         StringTable& strings, std::vector<ExprError>& errors,
                                         ValueType want = ValueType::Boolean);

}  // namespace thicket
