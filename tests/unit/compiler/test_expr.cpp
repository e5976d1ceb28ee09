// The `check:` expression language (expr.hpp): values, operators, precedence, short-circuit,
// strings, every diagnostic with its column, and the disassembly.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "expr.hpp"

using namespace thicket;

namespace {

// A blackboard of every type, with the slots the keys point at.
struct Board {
  StringTable strings;
  std::vector<ExprKey> keys = {
      {"health", ValueType::Number, 0}, {"ammo", ValueType::Integer, 1},
      {"alert", ValueType::Boolean, 2}, {"mood", ValueType::String, 3},
      {"target", ValueType::Any, 4},    {"armed", ValueType::Boolean, 5},
      {"name", ValueType::String, 6},
  };
  Slot slots[7] = {};

  Board() {
    slots[0].num = 100;
    slots[1].i = 6;
    slots[2].i = 0;
    slots[3].str = strings.intern("calm");
    slots[4].ref = -2;
    slots[5].i = 1;
    slots[6].str = strings.intern("");
  }

  CompiledExpr compile(std::string_view src) {
    std::vector<ExprError> errors;
    auto expr = compile_expr(src, keys, strings, errors);
    for (const ExprError& e : errors) MESSAGE(src, " -> ", e.column, ": ", e.message);
    REQUIRE(expr.has_value());
    CHECK(errors.empty());
    return *expr;
  }
  bool eval(std::string_view src) { return compile(src).eval(slots, strings); }
  std::string dis(std::string_view src) { return compile(src).disassemble(); }

  // All errors as "COLUMN: MESSAGE" lines.
  std::string errors(std::string_view src) {
    std::vector<ExprError> errors;
    auto expr = compile_expr(src, keys, strings, errors);
    CHECK_FALSE(expr.has_value());
    std::string out;
    for (const ExprError& e : errors) out += std::to_string(e.column) + ": " + e.message + "\n";
    return out;
  }
};

}  // namespace

TEST_CASE("expr: literals") {
  Board b;
  CHECK(b.eval("true"));
  CHECK_FALSE(b.eval("false"));
  CHECK(b.eval("30 == 30"));
  CHECK(b.eval("2.5 == 2.5"));
  CHECK(b.eval("1e3 == 1000"));
  CHECK(b.eval("1E+3 == 1000"));
  CHECK(b.eval("25e-1 == 2.5"));
  CHECK(b.eval(".5 == 0.5"));
  CHECK(b.eval("5. == 5"));
  CHECK(b.eval("\"calm\" == 'calm'"));
  CHECK(b.eval("  \t true \n"));
}

TEST_CASE("expr: arithmetic operators") {
  Board b;
  CHECK(b.eval("1 + 2 == 3"));
  CHECK(b.eval("5 - 7 == -2"));
  CHECK(b.eval("3 * 4 == 12"));
  CHECK(b.eval("7 / 2 == 3.5"));
  CHECK(b.eval("7 % 3 == 1"));
  CHECK(b.eval("5.5 % 2 == 1.5"));
  CHECK(b.eval("-(2) == 0 - 2"));
  CHECK(b.eval("- -2 == 2"));
  CHECK(b.eval("-health == -100"));
}

TEST_CASE("expr: modulo is floored, taking the sign of the divisor (as in Lua)") {
  Board b;
  CHECK(b.eval("-1 % 3 == 2"));
  CHECK(b.eval("1 % -3 == -2"));
  CHECK(b.eval("-7 % -3 == -1"));
  CHECK(b.eval("6 % 3 == 0"));
  CHECK(b.eval("-6 % 3 == 0"));
  // A zero result keeps the dividend's sign, as Lua's (fmod's) does: seen through a division
  // (the whole-number path gave +0 here).
  CHECK(b.eval("1 / (-7 % 7) < 0"));
  CHECK(b.eval("1 / (-7 % -7) < 0"));
  CHECK(b.eval("1 / (7 % -7) > 0"));
  CHECK(b.eval("1 / (-7.5 % 2.5) < 0"));
}

TEST_CASE("expr: division by zero is IEEE; comparisons with nan are false except !=") {
  Board b;
  CHECK(b.eval("1 / 0 > 1e308"));
  CHECK(b.eval("-1 / 0 < -1e308"));
  CHECK(b.eval("0 / 0 != 0 / 0"));
  CHECK_FALSE(b.eval("0 / 0 == 0 / 0"));
  CHECK_FALSE(b.eval("0 / 0 < 1"));
  CHECK_FALSE(b.eval("0 / 0 <= 1"));
  CHECK_FALSE(b.eval("0 / 0 > 1"));
  CHECK_FALSE(b.eval("0 / 0 >= 1"));
  CHECK(b.eval("5 % 0 != 5 % 0"));  // nan
}

TEST_CASE("expr: numeric comparisons") {
  Board b;
  CHECK(b.eval("1 < 2"));
  CHECK_FALSE(b.eval("2 < 2"));
  CHECK(b.eval("2 <= 2"));
  CHECK_FALSE(b.eval("3 <= 2"));
  CHECK(b.eval("3 > 2"));
  CHECK_FALSE(b.eval("2 > 2"));
  CHECK(b.eval("2 >= 2"));
  CHECK_FALSE(b.eval("1 >= 2"));
  CHECK(b.eval("2 == 2"));
  CHECK_FALSE(b.eval("2 == 3"));
  CHECK(b.eval("2 != 3"));
  CHECK_FALSE(b.eval("2 != 2"));
}

TEST_CASE("expr: boolean operators and equality") {
  Board b;
  CHECK(b.eval("true and true"));
  CHECK_FALSE(b.eval("true and false"));
  CHECK_FALSE(b.eval("false and true"));
  CHECK(b.eval("false or true"));
  CHECK(b.eval("true or false"));
  CHECK_FALSE(b.eval("false or false"));
  CHECK(b.eval("not false"));
  CHECK_FALSE(b.eval("not true"));
  CHECK(b.eval("not not true"));
  CHECK(b.eval("true == true"));
  CHECK(b.eval("true != false"));
  CHECK(b.eval("alert == false"));
  CHECK(b.eval("armed == true"));
  CHECK(b.eval("alert != armed"));
}

TEST_CASE("expr: precedence, loosest first: or, and, not, comparisons, + -, * / %, unary -") {
  Board b;
  CHECK(b.eval("1 + 2 * 3 == 7"));
  CHECK(b.eval("(1 + 2) * 3 == 9"));
  CHECK(b.eval("1 + 7 % 4 == 4"));
  CHECK(b.eval("8 - 6 / 2 == 5"));
  CHECK(b.eval("-2 * 3 == -6"));
  CHECK(b.eval("-2 + 3 == 1"));
  CHECK(b.eval("10 - 4 - 3 == 3"));  // left-associative
  CHECK(b.eval("16 / 4 / 2 == 2"));
  CHECK(b.eval("2 * 3 == 6 and 1 < 2"));
  CHECK(b.eval("true or false and false"));   // true or (false and false)
  CHECK(b.eval("false and false or true"));   // (false and false) or true
  CHECK_FALSE(b.eval("not true and false"));  // (not true) and false
  CHECK(b.eval("not false or false"));        // (not false) or false
  CHECK(b.eval("not 1 > 2"));                 // not (1 > 2)
  CHECK(b.eval("not alert == armed"));        // not (alert == armed)

  CHECK(b.dis("alert or armed and not alert") == "alert armed alert not and or");
  CHECK(b.dis("(alert or armed) and true") == "alert armed or true and");
  CHECK(b.dis("1 + 2 * 3 - 4 < 5") == "1 2 3 * + 4 - 5 <");
  CHECK(b.dis("not 1 > 2") == "1 2 > not");
  CHECK(b.dis("-2 * 3 == 1") == "2 neg 3 * 1 ==");
}

TEST_CASE("expr: blackboard keys of every usable type") {
  Board b;
  CHECK_FALSE(b.eval("health < 30 and not alert"));
  b.slots[0].num = 20;
  CHECK(b.eval("health < 30 and not alert"));
  b.slots[2].i = 1;
  CHECK_FALSE(b.eval("health < 30 and not alert"));

  CHECK(b.eval("ammo == 6"));
  CHECK(b.eval("ammo * 2 == 12"));
  CHECK(b.eval("ammo / 4 == 1.5"));  // numbers are doubles: no integer division
  CHECK(b.eval("ammo < health"));
  b.slots[1].i = -3;
  CHECK(b.eval("ammo == -3"));
  b.slots[1].i = int64_t{1} << 53;
  CHECK(b.eval("ammo == 9007199254740992"));

  CHECK(b.eval("mood == 'calm'"));
  b.slots[3].str = b.strings.intern("angry");
  CHECK(b.eval("mood == \"angry\""));
  CHECK(b.eval("mood != 'calm'"));
  CHECK(b.eval("name == ''"));
}

TEST_CASE("expr: a boolean slot counts any nonzero value as true") {
  Board b;
  b.slots[2].i = 7;
  CHECK(b.eval("alert"));
  CHECK(b.eval("alert == true"));
  CHECK(b.eval("alert == armed"));
}

TEST_CASE("expr: strings compare equal by interned id, and order bytewise") {
  Board b;
  CompiledExpr e = b.compile("mood == 'calm'");
  REQUIRE(e.code().size() == 3);
  CHECK(e.code()[1].op == ExprOp::PushStr);
  CHECK(e.code()[1].arg == b.strings.intern("calm"));
  CHECK(e.code()[2].op == ExprOp::EqId);

  CHECK(b.eval("'apple' < 'banana'"));
  CHECK_FALSE(b.eval("'banana' < 'apple'"));
  CHECK(b.eval("'B' < 'a'"));  // bytes, not locale
  CHECK(b.eval("'ab' < 'abc'"));
  CHECK(b.eval("'' < 'a'"));
  CHECK(b.eval("'abc' <= 'abc'"));
  CHECK(b.eval("'b' > 'a'"));
  CHECK(b.eval("'b' >= 'b'"));
  CHECK(b.eval("'\xC3\xA9' > 'z'"));  // UTF-8 bytes compare unsigned
  CHECK(b.eval("mood >= 'calm' and mood < 'calmer'"));
  CHECK(b.eval("name < mood"));
}

TEST_CASE("expr: string escapes") {
  Board b;
  CHECK(b.eval(R"('it\'s' == "it's")"));
  CHECK(b.eval(R"("say \"hi\"" == 'say "hi"')"));
  b.compile(R"('back\\slash' == name)");
  CHECK(b.strings.intern("back\\slash") == b.compile(R"('back\\slash' == name)").code()[0].arg);
  CHECK(b.eval(R"("\'" == '\'')"));
}

TEST_CASE("expr: string literals are interned only when the expression compiles") {
  Board b;
  size_t before = b.strings.size();
  CHECK(b.errors("mood == 'never seen' and health") != "");
  CHECK(b.strings.size() == before);
  b.compile("mood == 'never seen'");
  CHECK(b.strings.size() == before + 1);
}

TEST_CASE("expr: and / or short-circuit") {
  Board b;
  // The jump skips the whole right side, keeping the deciding value.
  CompiledExpr e = b.compile("alert and health > 3");
  REQUIRE(e.code().size() == 5);
  CHECK(e.code()[1].op == ExprOp::AndJump);
  CHECK(e.code()[1].arg == 5);
  e = b.compile("armed or health > 3");
  CHECK(e.code()[1].op == ExprOp::OrJump);
  CHECK(e.code()[1].arg == 5);

  // A right side that would read past the slot array is never run (AddressSanitizer would
  // report the read if it were).
  std::vector<ExprKey> keys = {{"off", ValueType::Boolean, 0}, {"on", ValueType::Boolean, 1},
                               {"far", ValueType::Number, 2}};
  std::vector<Slot> slots(2);
  slots[0].i = 0;
  slots[1].i = 1;
  std::vector<ExprError> errors;
  auto expr_and = compile_expr("off and far > 1", keys, b.strings, errors);
  auto expr_or = compile_expr("on or far > 1", keys, b.strings, errors);
  auto nested = compile_expr("(off and far > 1) or (on or far < 1)", keys, b.strings, errors);
  REQUIRE(errors.empty());
  CHECK_FALSE(expr_and->eval(slots.data(), b.strings));
  CHECK(expr_or->eval(slots.data(), b.strings));
  CHECK(nested->eval(slots.data(), b.strings));

  // Chains: the first deciding value ends the chain.
  CHECK_FALSE(b.eval("true and false and true"));
  CHECK(b.eval("false or false or true"));
  CHECK(b.eval("false and true or true"));
  CHECK_FALSE(b.eval("true and (false or false)"));
}

TEST_CASE("expr: slots_read lists each slot once, ascending") {
  Board b;
  CompiledExpr e = b.compile("mood == 'x' or health < ammo and health > 0");
  std::vector<uint32_t> read(e.slots_read().begin(), e.slots_read().end());
  CHECK(read == std::vector<uint32_t>{0, 1, 3});
  CHECK(b.compile("1 < 2").slots_read().empty());
}

TEST_CASE("expr: a compiled expression is a self-contained value") {
  Board b;
  std::optional<CompiledExpr> copy;
  {
    std::string src = "health > 50 and mood == 'calm'";
    CompiledExpr original = b.compile(src);
    copy = original;
    src.assign(src.size(), 'x');
  }
  CHECK(copy->eval(b.slots, b.strings));
  CHECK(copy->source() == "health > 50 and mood == 'calm'");
  CHECK(copy->disassemble() == "health 50 > mood 'calm' == and");

  CompiledExpr empty;  // the constant false
  CHECK_FALSE(empty.eval(b.slots, b.strings));
  CHECK(empty.disassemble() == "false");
}

TEST_CASE("expr: disassemble") {
  Board b;
  CHECK(b.dis("health < 30 and not alert") == "health 30 < alert not and");
  CHECK(b.dis("-health * (2 + ammo) >= 1e3 or mood == 'calm'") ==
        "health neg 2 ammo + * 1e3 >= mood 'calm' == or");
  CHECK(b.dis("alert and armed and alert") == "alert armed and alert and");
  CHECK(b.dis("alert and (armed and alert)") == "alert armed alert and and");
  CHECK(b.dis("alert or (armed and (alert or armed))") == "alert armed alert armed or and or");
  CHECK(b.dis("(alert or armed) and (armed or alert)") == "alert armed or armed alert or and");
  CHECK(b.dis("health % 7 / 2 - 1 <= 3 and 'a' != mood") == "health 7 % 2 / 1 - 3 <= 'a' mood != and");
  CHECK(b.dis("ammo > -1.5 or false") == "ammo 1.5 neg > false or");
  CHECK(b.dis("  true  ") == "true");
}

TEST_CASE("expr: unknown keys, with a suggestion or the declared keys") {
  Board b;
  CHECK(b.errors("helth < 30") == "0: unknown blackboard key 'helth'; did you mean 'health'?\n");
  CHECK(b.errors("not alret") == "4: unknown blackboard key 'alret'; did you mean 'alert'?\n");
  CHECK(b.errors("True") == "0: unknown blackboard key 'True'; did you mean 'true'?\n");
  CHECK(b.errors("tru") == "0: unknown blackboard key 'tru'; did you mean 'true'?\n");  // (no key near: it listed the keys)
  CHECK(b.errors("alert == fals") == "9: unknown blackboard key 'fals'; did you mean 'false'?\n");

  std::vector<ExprKey> keys = {{"health", ValueType::Number, 0}, {"alert", ValueType::Boolean, 1}};
  std::vector<ExprError> errors;
  CHECK_FALSE(compile_expr("hp < 30", keys, b.strings, errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].column == 0);
  CHECK(errors[0].message == "unknown blackboard key 'hp'; declared keys: alert, health");

  errors.clear();
  CHECK_FALSE(compile_expr("x", {}, b.strings, errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].message == "unknown blackboard key 'x'; the blackboard declares no keys");

  // Beside == or != with no key near: a text without its quotes, most likely.
  errors.clear();
  keys.push_back({"mood", ValueType::String, 2});
  CHECK_FALSE(compile_expr("mood == calm", keys, b.strings, errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].message == "unknown blackboard key 'calm'; declared keys: alert, health, mood; a text is written in quotes: \"calm\"");
  errors.clear();
  CHECK_FALSE(compile_expr("calm != mood", keys, b.strings, errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].column == 0);
  CHECK(errors[0].message.find("a text is written in quotes: \"calm\"") != std::string::npos);
  errors.clear();  // Lua's nil: no text in quotes either
  CHECK_FALSE(compile_expr("mood != nil", keys, b.strings, errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].message == "unknown blackboard key 'nil'; declared keys: alert, health, mood; a check has no nil: every declared key holds a value of its type");
  errors.clear();  // not beside an equality: no such hint
  CHECK_FALSE(compile_expr("calm < 3", keys, b.strings, errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].message == "unknown blackboard key 'calm'; declared keys: alert, health, mood");
}

TEST_CASE("expr: every error is reported, sorted by column") {
  Board b;
  CHECK(b.errors("helth < 30 and not alret") ==
        "0: unknown blackboard key 'helth'; did you mean 'health'?\n"
        "19: unknown blackboard key 'alret'; did you mean 'alert'?\n");
  CHECK(b.errors("health and 1 or mood") ==
        "7: 'and' needs two booleans (true/false), got number and number\n"
        "13: 'or' needs two booleans (true/false), got boolean and string\n");
  CHECK(b.errors("helth && alret") ==
        "0: unknown blackboard key 'helth'; did you mean 'health'?\n"
        "6: '&&' is not an operator; use 'and'\n"
        "9: unknown blackboard key 'alret'; did you mean 'alert'?\n");
  // A semantic error before a syntax error is kept; parsing stops at the syntax error.
  CHECK(b.errors("helth < 30 alert xyz") ==
        "0: unknown blackboard key 'helth'; did you mean 'health'?\n"
        "11: unexpected 'alert' after a complete expression\n");

  // Errors are appended to what the list already holds.
  std::vector<ExprError> errors = {{99, "earlier"}};
  CHECK_FALSE(compile_expr("helth", b.keys, b.strings, errors));
  REQUIRE(errors.size() == 2);
  CHECK(errors[0].message == "earlier");
}

TEST_CASE("expr: a key of type any cannot be used") {
  Board b;
  CHECK(b.errors("alert and target == 3") ==
        "10: blackboard key 'target' has type any, which a check expression cannot use; "
        "test it in a Lua condition leaf instead\n");
}

TEST_CASE("expr: type errors name the operator, both types and the operator's column") {
  Board b;
  CHECK(b.errors("health < alert") ==
        "7: '<' needs two numbers or two strings, got number and boolean\n");
  CHECK(b.errors("mood >= 3") == "5: '>=' needs two numbers or two strings, got string and number\n");
  CHECK(b.errors("alert <= armed") ==
        "6: '<=' needs two numbers or two strings, got boolean and boolean\n");
  CHECK(b.errors("mood == 1") ==
        "5: '==' needs two values of the same type (two numbers, two booleans or two strings), "
        "got string and number\n");
  CHECK(b.errors("alert != 'x'") ==
        "6: '!=' needs two values of the same type (two numbers, two booleans or two strings), "
        "got boolean and string\n");
  CHECK(b.errors("alert or 1") ==
        "6: 'or' needs two booleans (true/false), got boolean and number\n");
  CHECK(b.errors("not health") == "0: 'not' needs a boolean (true/false), got number\n");
  CHECK(b.errors("mood + 1 > 2") == "5: '+' needs two numbers, got string and number\n");
  CHECK(b.errors("1 - alert > 2") == "2: '-' needs two numbers, got number and boolean\n");
  CHECK(b.errors("1 * 'a' > 2") == "2: '*' needs two numbers, got number and string\n");
  CHECK(b.errors("true / 1 > 2") == "5: '/' needs two numbers, got boolean and number\n");
  CHECK(b.errors("1 % true > 2") == "2: '%' needs two numbers, got number and boolean\n");
  CHECK(b.errors("-alert > 2") == "0: '-' needs a number, got boolean\n");
  CHECK(b.errors("health + 1") == "0: the expression must be a boolean (true/false), got number\n");
  CHECK(b.errors("  mood") == "2: the expression must be a boolean (true/false), got string\n");
  // After its error an operator's result is of no type, so one mistake is one message (its
  // number stood in, and `mood + mood == mood` said a second error at '==').
  CHECK(b.errors("mood + 1 > 2 and true") == "5: '+' needs two numbers, got string and number\n");
  CHECK(b.errors("mood + mood == mood") == "5: '+' needs two numbers, got string and string\n");
  CHECK(b.errors("-mood == mood") == "0: '-' needs a number, got string\n");
  CHECK(b.errors("mood * 2") == "5: '*' needs two numbers, got string and number\n");
  // A call: the language has none; said once, not as an unknown key and a stray '('.
  CHECK(b.errors("f(health) > 0") ==
        "0: 'f(...)' is a function call, which a check does not have; compare blackboard keys and values "
        "(health > 20 and not alert), or call a Lua condition leaf\n");
  CHECK(b.errors("abs(health - 3) < 1 and alert") ==
        "0: 'abs(...)' is a function call, which a check does not have; compare blackboard keys and values "
        "(health > 20 and not alert), or call a Lua condition leaf\n");
  // An unknown key causes no follow-on type errors.
  CHECK(b.errors("helth + 'x' < 3") ==
        "0: unknown blackboard key 'helth'; did you mean 'health'?\n");
}

TEST_CASE("expr: comparisons do not chain") {
  Board b;
  CHECK(b.errors("1 < health < 3") ==
        "11: comparisons do not chain: '<' follows another comparison; write 'a < b and b < c', "
        "or add parentheses\n");
  CHECK(b.eval("(1 < health) == true"));
}

TEST_CASE("expr: syntax errors") {
  Board b;
  CHECK(b.errors("") == "0: empty expression\n");
  CHECK(b.errors("   ") == "0: empty expression\n");
  CHECK(b.errors("health < 30 @") == "12: unexpected character '@'\n");
  CHECK(b.errors("health < @ or $") ==
        "9: unexpected character '@'\n14: unexpected character '$'\n");
  CHECK(b.errors("health \x01 3") == "7: unexpected character '\\x01'\n");
  CHECK(b.errors("health < 30 \xE2\x82\xAC") == "12: unexpected character '\xE2\x82\xAC'\n");
  // A word with letters past ASCII is one error (it was "unknown key 'h'" and "unexpected
  // character" after it); a symbol past ASCII on its own is still a character.
  CHECK(b.errors("h\xC3\xA9" "alth < 30") == "0: 'h\xC3\xA9" "alth' is no blackboard key: a key's name is ASCII letters, digits and _\n");
  CHECK(b.errors("health < 30 or \xC3\xA9lan") == "15: '\xC3\xA9lan' is no blackboard key: a key's name is ASCII letters, digits and _\n");
  CHECK(b.errors("mood == \"calm") == "8: unterminated string (no closing \")\n");
  CHECK(b.errors("mood == 'calm\\'") == "8: unterminated string (no closing ')\n");
  CHECK(b.errors("mood == 'calm\\") == "8: unterminated string (no closing ')\n");
  CHECK(b.errors("mood == 'a\\nb'") ==
        "10: unknown escape '\\n' in a string; only \\\" \\' and \\\\ are allowed\n");
  CHECK(b.errors("(health < 30") == "12: missing ')' to close the '(' that is character 1 of the expression\n");
  CHECK(b.errors("alert and (health < 30 alert)") ==
        "23: missing ')' to close the '(' that is character 11 of the expression (found 'alert')\n");
  // The character the message names counts characters, not bytes (the offsets before the
  // colon are bytes: the file's column is made from them). It said 18 here.
  CHECK(b.errors("mood == \"\xC3\xA9\" and (health < 30") ==
        "29: missing ')' to close the '(' that is character 17 of the expression\n");
  CHECK(b.errors("health < 30 alert") == "12: unexpected 'alert' after a complete expression\n");
  CHECK(b.errors("alert anf alert") == "6: unexpected 'anf' after a complete expression; did you mean 'and'?\n");
  CHECK(b.errors("alert ro alert") == "6: unexpected 'ro' after a complete expression; did you mean 'or'?\n");
  CHECK(b.errors("health < 30)") == "11: unexpected ')' with no matching '('\n");
  CHECK(b.errors("health <") == "8: expected a value after '<', got the end of the expression\n");
  CHECK(b.errors("< 3") == "0: expected a value, got '<'\n");
  CHECK(b.errors("()") == "1: expected a value after '(', got ')'\n");
  CHECK(b.errors("alert == not armed") ==
        "9: expected a value after '==', got 'not' (put 'not ...' in parentheses here)\n");
  CHECK(b.eval("alert == (not armed)"));
  CHECK(b.errors("health < 30abc") == "9: malformed number '30abc'\n");
  CHECK(b.errors("health < 1e") == "9: malformed number '1e'\n");
  CHECK(b.errors("health < 1.2.3") == "9: malformed number '1.2.3'\n");
  CHECK(b.errors("health < 1e999") == "9: number '1e999' is out of range\n");
}

TEST_CASE("expr: C-style operators are errors that say what to write") {
  Board b;
  CHECK(b.errors("alert && armed") == "6: '&&' is not an operator; use 'and'\n");
  CHECK(b.errors("alert || armed") == "6: '||' is not an operator; use 'or'\n");
  CHECK(b.errors("!alert") == "0: '!' is not an operator; use 'not'\n");
  CHECK(b.errors("health = 3") == "7: '=' is not an operator; use '==' to compare\n");
  CHECK(b.errors("alert & armed") == "6: unexpected character '&'\n");
  // Lua's not-equal, one error (not '~' and then '=' read as '=='), the meaning kept.
  CHECK(b.errors("health ~= 3") == "7: '~=' is Lua's not-equal; here it is written '!='\n");
  CHECK(b.errors("health ~= 3 and (health ~= true)") ==
        "7: '~=' is Lua's not-equal; here it is written '!='\n"
        "24: '~=' is Lua's not-equal; here it is written '!='\n"
        "24: '~=' needs two values of the same type (two numbers, two booleans or two strings), got number and boolean\n");
  CHECK(b.errors("health ~ 3") == "7: unexpected character '~'\n");
  // Read as meant, so the rest of the expression is still checked.
  CHECK(b.errors("!health") ==
        "0: '!' is not an operator; use 'not'\n"
        "0: '!' needs a boolean (true/false), got number\n");
}

namespace {
std::string right_leaning_sum(int values) {  // 1 + (1 + (... + 1)) > 0 needs `values` slots
  std::string s = "1";
  for (int i = 1; i < values; ++i) s = "1 + (" + s + ")";
  return s + " > 0";
}
}  // namespace

TEST_CASE("expr: the evaluation stack has a fixed size, checked at compile time") {
  Board b;
  static_assert(CompiledExpr::kMaxStack == 16);
  CHECK(b.eval(right_leaning_sum(16)));
  std::string deep = right_leaning_sum(17);
  size_t seventeenth = deep.find("1 + (1)");  // the innermost pair pushes values 16 and 17
  std::string expected = std::to_string(seventeenth + 5) +
                         ": expression too deep: it needs more than 16 values on the "
                         "evaluation stack; simplify it or split it into several conditions\n";
  CHECK(b.errors(deep) == expected);

  // A long left-leaning chain needs only two slots.
  std::string flat = "0";
  for (int i = 0; i < 200; ++i) flat += " + 1";
  CHECK(b.eval(flat + " == 200"));
}

TEST_CASE("expr: nesting is limited, so hostile input cannot overflow the C++ stack") {
  Board b;
  static_assert(CompiledExpr::kMaxNesting == 64);
  CHECK(b.eval(std::string(64, '(') + "true" + std::string(64, ')')));
  CHECK(b.errors(std::string(65, '(') + "true" + std::string(65, ')')) ==
        "64: expression nested too deeply (more than 64 levels)\n");
  std::string nots;
  for (int i = 0; i < 65; ++i) nots += "not ";
  CHECK(b.errors(nots + "true") == "256: expression nested too deeply (more than 64 levels)\n");
  CHECK(b.errors(std::string(100000, '(')) ==
        "64: expression nested too deeply (more than 64 levels)\n");
}

TEST_CASE("expr: a value of another type (a bt_script's right side) is compiled to that type and evaluated") {
  Board b;
  std::vector<ExprError> errors;
  auto num = compile_expr("health / 4 + ammo", b.keys, b.strings, errors, ValueType::Number);
  REQUIRE(num.has_value());
  CHECK(num->value(b.slots, b.strings).num == doctest::Approx(31.0));
  auto as_int = compile_expr("ammo * 2", b.keys, b.strings, errors, ValueType::Integer);  // integer keys take numbers
  REQUIRE(as_int.has_value());
  CHECK(as_int->value(b.slots, b.strings).num == doctest::Approx(12.0));
  auto text = compile_expr("mood", b.keys, b.strings, errors, ValueType::String);
  REQUIRE(text.has_value());
  CHECK(b.strings.get(static_cast<uint32_t>(text->value(b.slots, b.strings).i)) == "calm");
  auto literal = compile_expr("\"angry\"", b.keys, b.strings, errors, ValueType::String);
  REQUIRE(literal.has_value());
  CHECK(b.strings.get(static_cast<uint32_t>(literal->value(b.slots, b.strings).i)) == "angry");
  auto flag = compile_expr("health > 50 and not alert", b.keys, b.strings, errors, ValueType::Boolean);
  REQUIRE(flag.has_value());
  CHECK(flag->value(b.slots, b.strings).i == 1);
  CHECK(errors.empty());
  // The wrong type is an error naming the one wanted.
  CHECK_FALSE(compile_expr("health > 1", b.keys, b.strings, errors, ValueType::Number).has_value());
  CHECK_FALSE(compile_expr("1 + 2", b.keys, b.strings, errors, ValueType::String).has_value());
  REQUIRE(errors.size() == 2);
  CHECK(errors[0].message == "the expression must be a number, got boolean");
  CHECK(errors[1].message == "the expression must be a string, got number");
}
