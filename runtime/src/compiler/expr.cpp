// The `check:` expression language: lexer, type-checking parser that emits postfix code,
// the evaluator and the disassembler. The language and its open choices are described in
// expr.hpp.
#include "expr.hpp"

#include "suggest.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <iterator>
#include <utility>

namespace thicket {
namespace {

constexpr int kStackEffect[] = {
#define THICKET_EXPR_EFFECT(name, effect, word) effect,
    THICKET_EXPR_OPS(THICKET_EXPR_EFFECT)
#undef THICKET_EXPR_EFFECT
};
constexpr const char* kWord[] = {
#define THICKET_EXPR_WORD(name, effect, word) word,
    THICKET_EXPR_OPS(THICKET_EXPR_WORD)
#undef THICKET_EXPR_WORD
};
static_assert(std::size(kStackEffect) == std::size(kWord));
static_assert(std::size(kWord) <= 256, "ExprOp is a uint8_t");

int stack_effect(ExprOp op) { return kStackEffect[static_cast<size_t>(op)]; }
const char* word_of(ExprOp op) { return kWord[static_cast<size_t>(op)]; }
bool is_jump(ExprOp op) { return op == ExprOp::AndJump || op == ExprOp::OrJump; }

// ---------------------------------------------------------------------------------------------
// Lexer: the whole source into tokens up front, so every lexical error is reported even when
// parsing stops early.

enum class Tok : uint8_t {
  Number, String, Key, True, False, And, Or, Not, LParen, RParen,
  Plus, Minus, Star, Slash, Percent, Eq, Ne, Lt, Le, Gt, Ge,
  Bad,  // a lexical error, already reported; parsed as a value of unknown type
  End,
};

struct Token {
  Tok kind;
  uint32_t begin, size;  // bytes of the source
  double num = 0;        // Number: its value
  std::string text;      // String: its decoded value
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

struct Keyword {
  std::string_view word;
  Tok kind;
};
constexpr Keyword kKeywords[] = {
    {"and", Tok::And}, {"or", Tok::Or}, {"not", Tok::Not}, {"true", Tok::True}, {"false", Tok::False}};

// How a byte is shown in a message: itself when printable, else \xNN.
std::string show_byte(unsigned char c) {
  if (c >= 0x20 && c < 0x7f) return std::string(1, static_cast<char>(c));
  const char* hex = "0123456789ABCDEF";
  return std::string("\\x") + hex[c >> 4] + hex[c & 15];
}

class Lexer {
 public:
  Lexer(std::string_view src, std::vector<ExprError>& errors) : src_(src), errors_(errors) {}

  std::vector<Token> run() {
    for (;;) {
      while (pos_ < src_.size() && is_space(src_[pos_])) ++pos_;
      if (pos_ == src_.size()) {
        push(Tok::End, pos_, 0);
        return std::move(tokens_);
      }
      char c = src_[pos_];
      if (is_ident_start(c) || letters_past_ascii()) word();
      else if (is_digit(c) || (c == '.' && is_digit(peek(1)))) number();
      else if (c == '"' || c == '\'') string();
      else punctuation();
    }
  }

 private:
  char peek(size_t ahead) const { return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0'; }
  // Bytes past ASCII that run into a name's characters ('élan'): read as a word (one error), not
  // a character on its own ('→': an unexpected character).
  bool letters_past_ascii() const {
    size_t end = pos_;
    while (end < src_.size() && static_cast<unsigned char>(src_[end]) >= 0x80) ++end;
    return end > pos_ && end < src_.size() && is_ident_char(src_[end]);
  }

  void push(Tok kind, size_t begin, size_t size) {
    tokens_.push_back(Token{kind, static_cast<uint32_t>(begin), static_cast<uint32_t>(size), 0, {}});
    pos_ = begin + size;
  }
  void error(size_t column, std::string message) {
    errors_.push_back(ExprError{static_cast<uint32_t>(column), std::move(message)});
  }

  void word() {
    size_t end = pos_;
    bool ascii = true;  // a word with letters past ASCII ('héllo') is one error, not 'h' and 'é'
    while (end < src_.size() && (is_ident_char(src_[end]) || static_cast<unsigned char>(src_[end]) >= 0x80)) {
      ascii = ascii && static_cast<unsigned char>(src_[end]) < 0x80;
      ++end;
    }
    std::string_view w = src_.substr(pos_, end - pos_);
    if (!ascii) {
      error(pos_, "'" + std::string(w) + "' is no blackboard key: a key's name is ASCII letters, digits and _");
      return push(Tok::Bad, pos_, end - pos_);
    }
    Tok kind = Tok::Key;
    for (const Keyword& k : kKeywords)
      if (k.word == w) kind = k.kind;
    push(kind, pos_, end - pos_);
  }

  void number() {
    size_t end = pos_;
    auto digits = [&] { while (end < src_.size() && is_digit(src_[end])) ++end; };
    digits();
    if (end < src_.size() && src_[end] == '.') {
      ++end;
      digits();
    }
    if (end < src_.size() && (src_[end] == 'e' || src_[end] == 'E')) {
      size_t exp = end + 1;
      if (exp < src_.size() && (src_[exp] == '+' || src_[exp] == '-')) ++exp;
      if (exp < src_.size() && is_digit(src_[exp])) {
        end = exp;
        digits();
      }
    }
    // Letters, digits or dots glued on (`30abc`, `1e`, `1.2.3`) make the whole run malformed.
    bool malformed = false;
    while (end < src_.size() && (is_ident_char(src_[end]) || src_[end] == '.')) {
      malformed = true;
      ++end;
    }
    std::string_view text = src_.substr(pos_, end - pos_);
    if (malformed) {
      error(pos_, "malformed number '" + std::string(text) + "'");
      push(Tok::Bad, pos_, end - pos_);
      return;
    }
    double value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size()) {
      error(pos_, "number '" + std::string(text) + "' is out of range");
      push(Tok::Bad, pos_, end - pos_);
      return;
    }
    push(Tok::Number, pos_, end - pos_);
    tokens_.back().num = value;
  }

  void string() {
    const size_t begin = pos_;
    const char quote = src_[pos_];
    std::string text;
    size_t at = pos_ + 1;
    for (;;) {
      if (at >= src_.size() || (src_[at] == '\\' && at + 1 >= src_.size())) {
        error(begin, std::string("unterminated string (no closing ") + quote + ")");
        push(Tok::Bad, begin, src_.size() - begin);
        return;
      }
      char c = src_[at];
      if (c == quote) break;
      if (c == '\\') {
        char e = src_[at + 1];
        if (e != '"' && e != '\'' && e != '\\') {
          error(at, "unknown escape '\\" + show_byte(static_cast<unsigned char>(e)) +
                        "' in a string; only \\\" \\' and \\\\ are allowed");
          text += '\\';
        }
        text += e;
        at += 2;
        continue;
      }
      text += c;
      ++at;
    }
    push(Tok::String, begin, at + 1 - begin);
    tokens_.back().text = std::move(text);
  }

  void punctuation() {
    const char c = src_[pos_];
    const char next = peek(1);
    switch (c) {
      case '(': return push(Tok::LParen, pos_, 1);
      case ')': return push(Tok::RParen, pos_, 1);
      case '+': return push(Tok::Plus, pos_, 1);
      case '-': return push(Tok::Minus, pos_, 1);
      case '*': return push(Tok::Star, pos_, 1);
      case '/': return push(Tok::Slash, pos_, 1);
      case '%': return push(Tok::Percent, pos_, 1);
      case '<':
        if (next == '>') {  // SQL's and BASIC's not-equal
          error(pos_, "'<>' is not an operator; use '!=' for not equal");
          return push(Tok::Ne, pos_, 2);
        }
        return next == '=' ? push(Tok::Le, pos_, 2) : push(Tok::Lt, pos_, 1);
      case '>': return next == '=' ? push(Tok::Ge, pos_, 2) : push(Tok::Gt, pos_, 1);
      case '=':
        if (next == '=') return push(Tok::Eq, pos_, 2);
        if (next == '>' || next == '<') {  // `=>`, `=<`: the comparison's characters swapped
          error(pos_, std::string("'=") + next + "' is not an operator; use '" + next + "='");
          return push(next == '>' ? Tok::Ge : Tok::Le, pos_, 2);
        }
        error(pos_, "'=' is not an operator; use '==' to compare");
        return push(Tok::Eq, pos_, 1);  // read as meant, so the rest is still checked
      case '!':
        if (next == '=') return push(Tok::Ne, pos_, 2);
        error(pos_, "'!' is not an operator; use 'not'");
        return push(Tok::Not, pos_, 1);
      case '&':
        if (next != '&') break;
        error(pos_, "'&&' is not an operator; use 'and'");
        return push(Tok::And, pos_, 2);
      case '|':
        if (next != '|') break;
        error(pos_, "'||' is not an operator; use 'or'");
        return push(Tok::Or, pos_, 2);
      case '~':  // Lua's not-equal, from a modder who writes leaves in Lua
        if (next != '=') break;
        error(pos_, "'~=' is Lua's not-equal; here it is written '!='");
        return push(Tok::Ne, pos_, 2);
      default: break;
    }
    // One character; a UTF-8 sequence counts as one.
    auto lead = static_cast<unsigned char>(c);
    size_t size = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    size = std::min(size, src_.size() - pos_);
    std::string shown = lead >= 0xC0 ? std::string(src_.substr(pos_, size)) : show_byte(lead);
    error(pos_, "unexpected character '" + shown + "'");
    push(Tok::Bad, pos_, size);
  }

  std::string_view src_;
  std::vector<ExprError>& errors_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Names: the "did you mean" for unknown keys.

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string unknown_key_message(std::string_view name, const std::vector<ExprKey>& keys) {
  std::string message = "unknown blackboard key '" + std::string(name) + "'";
  std::vector<std::string> names;
  for (const ExprKey& k : keys) names.push_back(k.name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());

  std::string suggestion = did_you_mean(name, names);
  if (!suggestion.empty()) return message + suggestion;
  for (const Keyword& k : kKeywords)  // `True`, `NOT`: a keyword in the wrong case
    if (lowercase(name) == k.word) return message + "; did you mean '" + std::string(k.word) + "'?";
  // A misspelt literal (`tru`, `fals`), when no key is near.
  if (std::string near = did_you_mean(name, {"true", "false"}); !near.empty()) return message + near;
  if (names.empty()) return message + "; the blackboard declares no keys";
  message += "; declared keys: ";
  for (size_t i = 0; i < names.size(); ++i) message += (i ? ", " : "") + names[i];
  return message;
}

// ---------------------------------------------------------------------------------------------
// Parser: recursive descent, one function per precedence level, type-checking as it emits
// postfix code. Each function returns the static type of what it parsed.

enum class Type : uint8_t {
  Number, Boolean, String,
  Unknown,  // after an error (unknown key, bad token): suppresses follow-on type errors
};

std::string_view type_name(Type t) {
  switch (t) {
    case Type::Number: return "number";
    case Type::Boolean: return "boolean";
    case Type::String: return "string";
    case Type::Unknown: break;
  }
  return "unknown";
}

class Parser {
 public:
  Parser(std::string_view src, const std::vector<Token>& tokens, const std::vector<ExprKey>& keys,
         std::vector<ExprError>& errors, Type want)
      : src_(src), tokens_(tokens), keys_(keys), errors_(errors), want_(want) {}

  // expression := or_expr END, of type want_ (a check's: boolean)
  void run() {
    if (peek().kind == Tok::End) return syntax_error(0, "empty expression");
    const uint32_t start = peek().begin;
    Type t = or_expr();
    if (stopped_) return;
    const Token& extra = peek();
    if (extra.kind == Tok::Bad) return;  // already reported
    if (extra.kind == Tok::RParen) return syntax_error(extra.begin, "unexpected ')' with no matching '('");
    if (extra.kind != Tok::End) {
      // `a AND b`: the words are lower case (a key named AND would need none of this).
      std::string lower(src_.substr(extra.begin, extra.size));
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      const bool keyword = extra.kind == Tok::Key && (lower == "and" || lower == "or" || lower == "not");
      // `a anf b`: a word after a whole expression is most likely a misspelt `and` or `or`.
      const std::string near = extra.kind == Tok::Key && !keyword ? did_you_mean(lower, {"and", "or"}) : std::string();
      return syntax_error(extra.begin, "unexpected " + show(extra) + " after a complete expression" +
                                           (keyword ? "; did you mean '" + lower + "'? (the words are lower case)" : near));
    }
    if (t != want_ && t != Type::Unknown) {
      const char* shown = want_ == Type::Boolean ? "a boolean (true/false)" : want_ == Type::Number ? "a number" : "a string";
      error(start, std::string("the expression must be ") + shown + ", got " + std::string(type_name(t)));
    }
  }

  std::vector<ExprInstr> code;
  std::vector<CompiledExpr::Span> spans;
  std::vector<std::pair<size_t, size_t>> string_literals;  // (instruction, token) to intern
  std::vector<uint32_t> slots_read;

 private:
  using Span = CompiledExpr::Span;

  const Token& peek() const { return tokens_[next_]; }
  const Token& advance() { return tokens_[next_ == tokens_.size() - 1 ? next_ : next_++]; }
  bool at(Tok kind) const { return !stopped_ && peek().kind == kind; }

  std::string show(const Token& t) const {
    if (t.kind == Tok::End) return "the end of the expression";
    return "'" + std::string(src_.substr(t.begin, t.size)) + "'";
  }
  std::string op_text(const Token& t) const { return std::string(src_.substr(t.begin, t.size)); }

  // Name and type errors: reported, parsing goes on.
  void error(uint32_t column, std::string message) {
    if (!stopped_) errors_.push_back(ExprError{column, std::move(message)});
  }
  // Syntax errors: reported, then parsing stops (what follows would only cascade).
  void syntax_error(uint32_t column, std::string message) {
    error(column, std::move(message));
    stopped_ = true;
  }

  void emit(ExprOp op, const Token& at, uint32_t arg = 0, double num = 0) {
    code.push_back(ExprInstr{op, arg, num});
    spans.push_back(Span{at.begin, at.size});
    depth_ += stack_effect(op);
    if (depth_ > static_cast<int>(CompiledExpr::kMaxStack) && !too_deep_reported_) {
      too_deep_reported_ = true;
      error(at.begin, "expression too deep: it needs more than " +
                          std::to_string(CompiledExpr::kMaxStack) +
                          " values on the evaluation stack; simplify it or split it into "
                          "several conditions");
    }
  }

  // Guards the C++ stack against `((((...` and `not not not ...`.
  bool enter(const Token& at) {
    if (++nesting_ <= CompiledExpr::kMaxNesting) return true;
    syntax_error(at.begin, "expression nested too deeply (more than " +
                               std::to_string(CompiledExpr::kMaxNesting) + " levels)");
    return false;
  }
  void leave() { --nesting_; }

  // or_expr := and_expr ('or' and_expr)*
  Type or_expr() {
    Type left = and_expr();
    while (at(Tok::Or)) left = logical(ExprOp::OrJump, left, &Parser::and_expr);
    return left;
  }

  // and_expr := not_expr ('and' not_expr)*
  Type and_expr() {
    Type left = not_expr();
    while (at(Tok::And)) left = logical(ExprOp::AndJump, left, &Parser::not_expr);
    return left;
  }

  // Short-circuit: left, a jump over the right side that keeps the deciding value, right.
  Type logical(ExprOp jump, Type left, Type (Parser::*operand)()) {
    const Token& op = advance();
    const size_t at_jump = code.size();
    emit(jump, op);
    Type right = (this->*operand)();
    code[at_jump].arg = static_cast<uint32_t>(code.size());
    if (!is_bool(left) || !is_bool(right))
      if (left != Type::Unknown && right != Type::Unknown)
        error(op.begin, "'" + op_text(op) + "' needs two booleans (true/false), got " +
                            both(left, right));
    return Type::Boolean;
  }

  // not_expr := 'not' not_expr | cmp_expr
  Type not_expr() {
    if (!at(Tok::Not)) return cmp_expr();
    const Token& op = advance();
    if (!enter(op)) return Type::Unknown;
    Type operand = not_expr();
    leave();
    emit(ExprOp::Not, op);
    if (!is_bool(operand) && operand != Type::Unknown)
      error(op.begin, "'" + op_text(op) + "' needs a boolean (true/false), got " +
                          std::string(type_name(operand)));
    return Type::Boolean;
  }

  static bool is_comparison(Tok k) {
    return k == Tok::Eq || k == Tok::Ne || k == Tok::Lt || k == Tok::Le || k == Tok::Gt ||
           k == Tok::Ge;
  }

  // cmp_expr := sum (cmp_op sum)?      -- `a < b < c` is an error, not (a < b) < c
  Type cmp_expr() {
    Type left = sum();
    if (stopped_ || !is_comparison(peek().kind)) return left;
    const Token& op = advance();
    Type right = sum();
    compare(op, left, right);
    while (!stopped_ && is_comparison(peek().kind)) {
      const Token& extra = advance();
      error(extra.begin, "comparisons do not chain: '" + op_text(extra) +
                             "' follows another comparison; write 'a < b and b < c', or add "
                             "parentheses");
      sum();
      emit(ExprOp::EqNum, extra);  // keeps the stack count right; the code is discarded
    }
    return Type::Boolean;
  }

  void compare(const Token& op, Type left, Type right) {
    const bool equality = op.kind == Tok::Eq || op.kind == Tok::Ne;
    const bool numbers = left == Type::Number && right == Type::Number;
    const bool strings = left == Type::String && right == Type::String;
    const bool booleans = left == Type::Boolean && right == Type::Boolean;
    const bool ok = numbers || strings || (equality && booleans);
    if (!ok && left != Type::Unknown && right != Type::Unknown) {
      if (equality)
        error(op.begin, "'" + op_text(op) + "' needs two values of the same type (two numbers, "
                            "two booleans or two strings), got " + both(left, right));
      else
        error(op.begin, "'" + op_text(op) + "' needs two numbers or two strings, got " +
                            both(left, right));
    }
    ExprOp code_op = ExprOp::EqNum;
    switch (op.kind) {
      case Tok::Eq: code_op = numbers ? ExprOp::EqNum : ExprOp::EqId; break;
      case Tok::Ne: code_op = numbers ? ExprOp::NeNum : ExprOp::NeId; break;
      case Tok::Lt: code_op = strings ? ExprOp::LtStr : ExprOp::LtNum; break;
      case Tok::Le: code_op = strings ? ExprOp::LeStr : ExprOp::LeNum; break;
      case Tok::Gt: code_op = strings ? ExprOp::GtStr : ExprOp::GtNum; break;
      case Tok::Ge: code_op = strings ? ExprOp::GeStr : ExprOp::GeNum; break;
      default: break;
    }
    emit(code_op, op);
  }

  // sum := product (('+' | '-') product)*
  Type sum() {
    Type left = product();
    while (at(Tok::Plus) || at(Tok::Minus)) {
      const Token& op = advance();
      Type right = product();
      left = arithmetic(op, op.kind == Tok::Plus ? ExprOp::Add : ExprOp::Sub, left, right);
    }
    return left;
  }

  // product := unary (('*' | '/' | '%') unary)*
  Type product() {
    Type left = unary();
    while (at(Tok::Star) || at(Tok::Slash) || at(Tok::Percent)) {
      const Token& op = advance();
      Type right = unary();
      ExprOp code_op = op.kind == Tok::Star ? ExprOp::Mul : op.kind == Tok::Slash ? ExprOp::Div : ExprOp::Mod;
      left = arithmetic(op, code_op, left, right);
    }
    return left;
  }

  Type arithmetic(const Token& op, ExprOp code_op, Type left, Type right) {
    emit(code_op, op);
    if ((left != Type::Number || right != Type::Number) && left != Type::Unknown &&
        right != Type::Unknown) {
      error(op.begin, "'" + op_text(op) + "' needs two numbers, got " + both(left, right));
      return Type::Unknown;  // said: not again by the operator that uses it
    }
    return Type::Number;
  }

  // unary := '-' unary | primary
  Type unary() {
    if (!at(Tok::Minus)) return primary();
    const Token& op = advance();
    if (!enter(op)) return Type::Unknown;
    Type operand = unary();
    leave();
    emit(ExprOp::Neg, op);
    if (operand != Type::Number && operand != Type::Unknown) {
      error(op.begin, "'-' needs a number, got " + std::string(type_name(operand)));
      return Type::Unknown;
    }
    return Type::Number;
  }

  // primary := NUMBER | STRING | 'true' | 'false' | KEY | '(' or_expr ')'
  Type primary() {
    if (stopped_) return Type::Unknown;
    const Token& t = peek();
    switch (t.kind) {
      case Tok::Number:
        advance();
        emit(ExprOp::PushNum, t, 0, t.num);
        return Type::Number;
      case Tok::String:
        advance();
        string_literals.emplace_back(code.size(), &t - tokens_.data());
        emit(ExprOp::PushStr, t);
        return Type::String;
      case Tok::True:
      case Tok::False:
        advance();
        emit(ExprOp::PushBool, t, t.kind == Tok::True ? 1 : 0);
        return Type::Boolean;
      case Tok::Key:
        advance();
        return key(t);
      case Tok::Bad:  // already reported: a value of unknown type, so parsing goes on
        advance();
        emit(ExprOp::PushNum, t);
        return Type::Unknown;
      case Tok::LParen: return parenthesized();
      default: break;
    }
    std::string message = "expected a value";
    if (next_ > 0) message += " after " + show(tokens_[next_ - 1]);
    message += ", got " + show(t);
    if (t.kind == Tok::Not) message += " (put 'not ...' in parentheses here)";
    syntax_error(t.begin, std::move(message));
    return Type::Unknown;
  }

  Type parenthesized() {
    const Token& open = advance();
    if (!enter(open)) return Type::Unknown;
    Type inner = or_expr();
    leave();
    if (stopped_) return Type::Unknown;
    const Token& close = peek();
    if (close.kind == Tok::RParen) {
      advance();
      return inner;
    }
    if (close.kind == Tok::Bad) {  // already reported
      stopped_ = true;
      return Type::Unknown;
    }
    // (counted in characters, not bytes: an 'é' before it is one)
    const size_t character = utf8_characters(std::string_view(src_).substr(0, open.begin)) + 1;
    std::string message = "missing ')' to close the '(' that is character " + std::to_string(character) + " of the expression";
    if (close.kind != Tok::End) message += " (found " + show(close) + ")";
    syntax_error(close.begin, std::move(message));
    return Type::Unknown;
  }

  Type key(const Token& t) {
    std::string_view name = src_.substr(t.begin, t.size);
    if (at(Tok::LParen)) {  // `f(x)`: a call, which the language does not have (said once, its arguments read)
      error(t.begin, "'" + std::string(name) + "(...)' is a function call, which a check does not have; compare "
                     "blackboard keys and values (health > 20 and not alert), or call a Lua condition leaf");
      emit(ExprOp::PushNum, t);
      (void)parenthesized();
      return Type::Unknown;
    }
    const ExprKey* found = nullptr;
    for (const ExprKey& k : keys_)
      if (k.name == name) {
        found = &k;
        break;
      }
    if (!found) {
      std::string message = unknown_key_message(name, keys_);
      // Compared with `==` or `!=` and no key near it: most likely a text without its quotes.
      auto equality = [&](size_t at) { return at < tokens_.size() && (tokens_[at].kind == Tok::Eq || tokens_[at].kind == Tok::Ne); };
      if (name == "nil")  // Lua's
        message += "; a check has no nil: every declared key holds a value of its type";
      else if (message.find("did you mean") == std::string::npos && ((next_ >= 2 && equality(next_ - 2)) || equality(next_)))
        message += "; a text is written in quotes: \"" + std::string(name) + "\"";
      error(t.begin, message);
      emit(ExprOp::PushNum, t);
      return Type::Unknown;
    }
    if (found->broken) {  // its declaration's error says it all
      emit(ExprOp::PushNum, t);
      return Type::Unknown;
    }
    slots_read.push_back(found->slot);
    switch (found->type) {
      case ValueType::Number: emit(ExprOp::LoadNum, t, found->slot); return Type::Number;
      case ValueType::Integer: emit(ExprOp::LoadInt, t, found->slot); return Type::Number;
      case ValueType::Boolean: emit(ExprOp::LoadBool, t, found->slot); return Type::Boolean;
      case ValueType::String: emit(ExprOp::LoadStr, t, found->slot); return Type::String;
      case ValueType::Any: break;
    }
    error(t.begin, "blackboard key '" + std::string(name) +
                       "' has type any, which a check expression cannot use; test it in a Lua "
                       "condition leaf instead");
    emit(ExprOp::PushNum, t);
    return Type::Unknown;
  }

  static bool is_bool(Type t) { return t == Type::Boolean; }
  static std::string both(Type a, Type b) {
    return std::string(type_name(a)) + " and " + std::string(type_name(b));
  }

  std::string_view src_;
  const std::vector<Token>& tokens_;  // ends with an End token
  const std::vector<ExprKey>& keys_;
  std::vector<ExprError>& errors_;
  size_t next_ = 0;
  int depth_ = 0;
  size_t nesting_ = 0;
  bool too_deep_reported_ = false;
  bool stopped_ = false;
  Type want_;
};

// Lua's floored modulo: the result takes the sign of the divisor. Whole operands (the usual
// case: counters, ticks) take an integer path; std::fmod is a library call several times
// slower, and the results are the same.
double floored_mod(double a, double b) {
  if (a > -9.0e15 && a < 9.0e15 && b > -9.0e15 && b < 9.0e15) {
    auto ia = static_cast<int64_t>(a), ib = static_cast<int64_t>(b);
    if (static_cast<double>(ia) == a && static_cast<double>(ib) == b && ib != 0) {
      int64_t r = ia % ib;
      if (r == 0) return std::copysign(0.0, a);  // as fmod gives it: -7 % 7 is -0, as in Lua
      if ((r < 0) != (ib < 0)) r += ib;
      return static_cast<double>(r);
    }
  }
  double m = std::fmod(a, b);
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

CompiledExpr::CompiledExpr()
    : code_{ExprInstr{ExprOp::PushBool, 0, 0}}, spans_{Span{0, 5}}, source_("false") {}

CompiledExpr::CompiledExpr(std::vector<ExprInstr> code, std::vector<Span> spans,
                           std::string source, std::vector<uint32_t> slots_read)
    : code_(std::move(code)),
      spans_(std::move(spans)),
      source_(std::move(source)),
      slots_read_(std::move(slots_read)) {}

std::optional<CompiledExpr> compile_expr(std::string_view src, const std::vector<ExprKey>& keys,
                                         StringTable& strings, std::vector<ExprError>& errors, ValueType want) {
  const size_t first_error = errors.size();
  std::vector<Token> tokens = Lexer(src, errors).run();
  const Type type = want == ValueType::String ? Type::String
                    : want == ValueType::Number || want == ValueType::Integer ? Type::Number
                                                                               : Type::Boolean;
  Parser parser(src, tokens, keys, errors, type);
  parser.run();
  std::stable_sort(errors.begin() + static_cast<std::ptrdiff_t>(first_error), errors.end(),
                   [](const ExprError& a, const ExprError& b) { return a.column < b.column; });
  if (errors.size() != first_error) return std::nullopt;

  for (auto [instr, token] : parser.string_literals)
    parser.code[instr].arg = strings.intern(tokens[token].text);
  std::sort(parser.slots_read.begin(), parser.slots_read.end());
  parser.slots_read.erase(std::unique(parser.slots_read.begin(), parser.slots_read.end()),
                          parser.slots_read.end());
  return CompiledExpr(std::move(parser.code), std::move(parser.spans), std::string(src),
                      std::move(parser.slots_read));
}

namespace {
// The machine itself, inlined into both entry points (a check's eval is on the tick's path).
[[gnu::always_inline]] inline Slot run_expr(const ExprInstr* const code, const ExprInstr* const end, const Slot* slots,
                                            const StringTable& strings) noexcept {
  Slot stack[CompiledExpr::kMaxStack];  // compile_expr proved the code never needs more
  Slot* sp = stack;                     // the next free entry; sp[-1] is the top
  auto str = [&](const Slot& s) { return strings.get(static_cast<uint32_t>(s.i)); };
  for (const ExprInstr* pc = code; pc != end;) {
    const ExprInstr& in = *pc++;
    switch (in.op) {
      case ExprOp::PushNum: (sp++)->num = in.num; break;
      case ExprOp::PushBool: (sp++)->i = in.arg; break;
      case ExprOp::PushStr: (sp++)->i = in.arg; break;
      case ExprOp::LoadNum: (sp++)->num = slots[in.arg].num; break;
      case ExprOp::LoadInt: (sp++)->num = static_cast<double>(slots[in.arg].i); break;
      case ExprOp::LoadBool: (sp++)->i = slots[in.arg].i != 0; break;
      case ExprOp::LoadStr: (sp++)->i = slots[in.arg].str; break;
      case ExprOp::Neg: sp[-1].num = -sp[-1].num; break;
      case ExprOp::Add: --sp; sp[-1].num += sp[0].num; break;
      case ExprOp::Sub: --sp; sp[-1].num -= sp[0].num; break;
      case ExprOp::Mul: --sp; sp[-1].num *= sp[0].num; break;
      case ExprOp::Div: --sp; sp[-1].num /= sp[0].num; break;
      case ExprOp::Mod: --sp; sp[-1].num = floored_mod(sp[-1].num, sp[0].num); break;
      case ExprOp::Not: sp[-1].i = sp[-1].i == 0; break;
      case ExprOp::EqNum: --sp; sp[-1].i = sp[-1].num == sp[0].num; break;
      case ExprOp::NeNum: --sp; sp[-1].i = sp[-1].num != sp[0].num; break;
      case ExprOp::LtNum: --sp; sp[-1].i = sp[-1].num < sp[0].num; break;
      case ExprOp::LeNum: --sp; sp[-1].i = sp[-1].num <= sp[0].num; break;
      case ExprOp::GtNum: --sp; sp[-1].i = sp[-1].num > sp[0].num; break;
      case ExprOp::GeNum: --sp; sp[-1].i = sp[-1].num >= sp[0].num; break;
      case ExprOp::EqId: --sp; sp[-1].i = sp[-1].i == sp[0].i; break;
      case ExprOp::NeId: --sp; sp[-1].i = sp[-1].i != sp[0].i; break;
      case ExprOp::LtStr: --sp; sp[-1].i = str(sp[-1]) < str(sp[0]); break;
      case ExprOp::LeStr: --sp; sp[-1].i = str(sp[-1]) <= str(sp[0]); break;
      case ExprOp::GtStr: --sp; sp[-1].i = str(sp[-1]) > str(sp[0]); break;
      case ExprOp::GeStr: --sp; sp[-1].i = str(sp[-1]) >= str(sp[0]); break;
      case ExprOp::AndJump:
        if (sp[-1].i == 0) pc = code + in.arg;
        else --sp;
        break;
      case ExprOp::OrJump:
        if (sp[-1].i != 0) pc = code + in.arg;
        else --sp;
        break;
    }
  }
  return stack[0];
}
}  // namespace

bool CompiledExpr::eval(const Slot* slots, const StringTable& strings) const noexcept {
  return run_expr(code_.data(), code_.data() + code_.size(), slots, strings).i != 0;
}

Slot CompiledExpr::value(const Slot* slots, const StringTable& strings) const noexcept {
  return run_expr(code_.data(), code_.data() + code_.size(), slots, strings);
}

std::string CompiledExpr::disassemble() const {
  std::string out;
  auto word = [&](std::string_view w) {
    if (!out.empty()) out += ' ';
    out += w;
  };
  // An `and`/`or` is printed where its right side ends; the later of two jumps to the same
  // place is the inner one, so it closes first. The jumps sorted by (target, later first), read
  // once in order (a scan back from each place was quadratic: 40,000 terms took seconds).
  std::vector<std::pair<size_t, size_t>> jumps;  // (target, -index) sorts later jumps first
  for (size_t j = 0; j < code_.size(); ++j)
    if (is_jump(code_[j].op)) jumps.emplace_back(code_[j].arg, code_.size() - j);
  std::sort(jumps.begin(), jumps.end());
  size_t next_jump = 0;
  auto close_jumps_to = [&](size_t target) {
    while (next_jump < jumps.size() && jumps[next_jump].first < target) ++next_jump;  // (a jump back: none)
    for (; next_jump < jumps.size() && jumps[next_jump].first == target; ++next_jump) {
      const size_t j = code_.size() - jumps[next_jump].second;
      if (j < target) word(word_of(code_[j].op));
    }
  };
  for (size_t pc = 0; pc < code_.size(); ++pc) {
    close_jumps_to(pc);
    ExprOp op = code_[pc].op;
    if (is_jump(op)) continue;
    if (const char* w = word_of(op)) word(w);
    else word(std::string_view(source_).substr(spans_[pc].begin, spans_[pc].size));
  }
  close_jumps_to(code_.size());
  return out;
}

}  // namespace thicket
