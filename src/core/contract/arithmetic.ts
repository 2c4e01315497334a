/**
 * arithmetic(): Python 3's arithmetic on a short expression of numbers, + - * / // ** and
 * parentheses, without running Python or any code: a tokenizer, a recursive-descent parser and
 * an evaluator written for this grammar only. It exists so that τ-bench's `calculate` tool (which
 * checks the characters and then calls Python's eval) can be a no-code definition that answers
 * what τ-bench answers, error messages included.
 *
 * What it reproduces, and was checked against (test/fixtures/arithmetic/cpython.json, computed by
 * CPython 3.11 with scripts/tau-bench/arithmetic-corpus.py): Python's operator precedence (`**`
 * binds tighter than a unary minus on its left, and is right-associative); integers of any size
 * (BigInt) next to floats (doubles); true division of two integers rounded once, as Python does;
 * floor division of floats by Python's own algorithm; float powers with Python's special cases
 * and its OverflowError; a negative number to a fractional power giving a complex number; the
 * empty tuple `()` and calls such as `2(3)`, which Python parses and then refuses; and the
 * messages of the syntax and run-time errors those reach. The answer is `float(result)`, as
 * `calculate` takes it: a number (possibly infinite or NaN, which JSON cannot carry), or an error.
 *
 * It is bounded, as every version-2 function must be: at most MAX_ARITHMETIC_LENGTH characters
 * (refused beyond, with a message that says so), at most 200 nested parentheses (Python's own
 * limit), and no integer beyond MAX_INTEGER_BITS bits (Python would go on; this refuses, saying
 * so, so `9 ** 9 ** 9` costs nothing). The caller charges the cost budget by the length.
 */

/** Characters of expression arithmetic() reads at most. */
export const MAX_ARITHMETIC_LENGTH = 1000;
/** Bits an intermediate integer may have; a float holds at most 1,024, so this leaves room to divide back. */
export const MAX_INTEGER_BITS = 65_536;
/** CPython's tokenizer refuses the 201st open parenthesis (MAXLEVEL). */
const MAX_PAREN_LEVEL = 200;

type ArithmeticResult = { readonly value: number } | { readonly error: string };

type Token =
  | { kind: "int"; value: bigint; at: number; depth: number }
  | { kind: "float"; value: number; at: number; depth: number }
  | { kind: "op"; value: string; at: number; depth: number }
  | { kind: "end"; at: number };

class PythonError extends Error {}

const syntax = (message: string, line = 1): PythonError => new PythonError(`${message} (<string>, line ${line})`);

interface Tokens {
  tokens: Token[];
  /** The first error the tokenizer meets, in source order: CPython reports it before any parse error. */
  error: string | null;
  /** Parentheses still open at the end. */
  open: number;
}

function tokenize(source: string): Tokens {
  const tokens: Token[] = [];
  let depth = 0;
  let error: string | null = null;
  let i = 0;
  while (i < source.length) {
    const c = source[i] as string;
    if (c === " ") {
      i++;
      continue;
    }
    if ((c >= "0" && c <= "9") || (c === "." && /[0-9]/.test(source[i + 1] ?? ""))) {
      const match = /^[0-9]*(\.[0-9]*)?/.exec(source.slice(i)) as RegExpExecArray;
      const text = match[0];
      if (match[1] === undefined) {
        // A decimal integer: "0", "000" or no leading zero at all.
        if (/^0+[1-9]/.test(text)) {
          error ??= "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers";
        }
        tokens.push({ kind: "int", value: BigInt(text), at: i, depth });
      } else {
        tokens.push({ kind: "float", value: Number(text), at: i, depth });
      }
      i += text.length;
      continue;
    }
    const two = source.slice(i, i + 2);
    if (two === "**" || two === "//") {
      tokens.push({ kind: "op", value: two, at: i, depth });
      i += 2;
      continue;
    }
    if (c === "(") {
      if (depth >= MAX_PAREN_LEVEL) error ??= "too many nested parentheses";
      tokens.push({ kind: "op", value: c, at: i, depth });
      depth++;
    } else if (c === ")") {
      if (depth === 0) error ??= "unmatched ')'";
      else depth--;
      tokens.push({ kind: "op", value: c, at: i, depth });
    } else {
      // + - * / and a lone "."
      tokens.push({ kind: "op", value: c, at: i, depth });
    }
    i++;
  }
  tokens.push({ kind: "end", at: source.length });
  return { tokens, error, open: depth };
}

// --- the syntax tree -----------------------------------------------------------------------------

type Node =
  | { kind: "number"; value: Value }
  | { kind: "tuple" }
  | { kind: "unary"; op: "-" | "+"; operand: Node }
  | { kind: "binary"; op: string; left: Node; right: Node }
  /** `(*x)`: parsed, as CPython parses it, and refused before evaluation. */
  | { kind: "starred"; operand: Node }
  | { kind: "call"; callee: Node; argument: Node | null; starred: boolean };

interface Parsed {
  /** The longest expression that parses from the start, or null. */
  tree: Node | null;
  /** Where it ends (the index of the first token after it). */
  end: number;
  /** The furthest token the parser looked at, as CPython's parser reports a generic error there. */
  furthest: number;
}

/**
 * A PEG parser, as CPython's is (an alternative that fails is backtracked out of), for:
 *   sum: term (('+' | '-') term)*        term: factor (('*' | '/' | '//') factor)*
 *   factor: ('+' | '-') factor | power   power: primary '**' factor | primary
 *   primary: atom ('(' ['*'] [sum] ')')* atom: NUMBER | '(' [['*'] sum] ')'
 * plus the look-ahead CPython makes after a primary for an attribute (`.` and a name).
 */
function parse(tokens: Token[], start: number): Parsed {
  let position = start;
  let furthest = start;
  const peek = (offset = 0): Token => {
    const index = Math.min(position + offset, tokens.length - 1);
    furthest = Math.max(furthest, index);
    return tokens[index] as Token;
  };
  const isOp = (token: Token, value: string): boolean => token.kind === "op" && token.value === value;

  const sum = (): Node | null => {
    let left = term();
    while (left !== null && (isOp(peek(), "+") || isOp(peek(), "-"))) {
      const save = position;
      const op = (tokens[position++] as { value: string }).value;
      const right = term();
      if (right === null) {
        position = save;
        break;
      }
      left = { kind: "binary", op, left, right };
    }
    return left;
  };
  const term = (): Node | null => {
    let left = factor();
    while (left !== null && (isOp(peek(), "*") || isOp(peek(), "/") || isOp(peek(), "//"))) {
      const save = position;
      const op = (tokens[position++] as { value: string }).value;
      const right = factor();
      if (right === null) {
        position = save;
        break;
      }
      left = { kind: "binary", op, left, right };
    }
    return left;
  };
  const factor = (): Node | null => {
    if (isOp(peek(), "-") || isOp(peek(), "+")) {
      const save = position;
      const op = (tokens[position++] as { value: "-" | "+" }).value;
      const operand = factor();
      if (operand === null) position = save;
      return operand === null ? null : { kind: "unary", op, operand };
    }
    const base = primary();
    if (base !== null && isOp(peek(), "**")) {
      const save = position++;
      const exponent = factor();
      if (exponent !== null) return { kind: "binary", op: "**", left: base, right: exponent };
      position = save;
    }
    return base;
  };
  /** `( [*] [sum] )` from a "(": what is inside, or undefined when it does not parse. */
  const parenthesized = (): { inner: Node | null; starred: boolean } | undefined => {
    const save = position++;
    const starred = isOp(peek(), "*");
    if (starred) position++;
    let inner: Node | null = null;
    if (!isOp(peek(), ")") || starred) inner = sum();
    if ((starred && inner === null) || (inner === null && !isOp(peek(), ")")) || !isOp(peek(), ")")) {
      position = save;
      return undefined;
    }
    position++;
    return { inner, starred };
  };
  const primary = (): Node | null => {
    const token = peek();
    let node: Node;
    if (token.kind === "int" || token.kind === "float") {
      position++;
      node = { kind: "number", value: token.value };
    } else if (isOp(token, "(")) {
      const group = parenthesized();
      if (group === undefined) return null;
      node =
        group.inner === null
          ? { kind: "tuple" }
          : group.starred
            ? { kind: "starred", operand: group.inner }
            : group.inner;
    } else {
      return null;
    }
    for (;;) {
      if (isOp(peek(), "(")) {
        const call = parenthesized();
        if (call === undefined) break;
        node = { kind: "call", callee: node, argument: call.inner, starred: call.starred };
      } else {
        // An attribute needs a name after the dot; there is none in this alphabet, but CPython looks.
        if (isOp(peek(), ".")) peek(1);
        break;
      }
    }
    return node;
  };

  const tree = sum();
  peek();
  return { tree, end: position, furthest };
}

/**
 * The message CPython 3.11 gives when the parse fails (after any tokenizer error). Its parser
 * reports parentheses left open only when it has read up to the end of the input. A number right
 * after a complete expression makes its second pass parse that number on as an expression, which
 * may read to the end; otherwise it guesses a missing comma when that expression's last token is
 * inside parentheses.
 */
function parseErrorMessage(parsed: Parsed, tokens: Tokens): string {
  const list = tokens.tokens;
  const end = list.length - 1;
  const token = list[parsed.furthest] as Token;
  const before = list[parsed.furthest - 1];
  if (token.kind === "end") return syntax(tokens.open > 0 ? "'(' was never closed" : "invalid syntax").message;
  const afterExpression =
    before !== undefined &&
    (before.kind === "int" || before.kind === "float" || (before.kind === "op" && before.value === ")"));
  if ((token.kind === "int" || token.kind === "float") && afterExpression) {
    const next = parse(list, parsed.furthest);
    if (next.furthest >= end && tokens.open > 0) return syntax("'(' was never closed").message;
    const last = list[next.end - 1] as Token;
    if (last.kind !== "end" && last.depth > 0) return syntax("invalid syntax. Perhaps you forgot a comma?").message;
  }
  return syntax("invalid syntax").message;
}

function hasStarredGroup(node: Node): boolean {
  switch (node.kind) {
    case "starred":
      return true;
    case "unary":
      return hasStarredGroup(node.operand);
    case "binary":
      return hasStarredGroup(node.left) || hasStarredGroup(node.right);
    case "call":
      return hasStarredGroup(node.callee) || (node.argument !== null && hasStarredGroup(node.argument));
    default:
      return false;
  }
}

// --- values and Python's operations on them ------------------------------------------------------

type Complex = { re: number; im: number };
type Value = bigint | number | Complex | "tuple";

const isComplex = (v: Value): v is Complex => typeof v === "object";

function typeName(v: Value): string {
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return "float";
  if (v === "tuple") return "tuple";
  return "complex";
}

/** Python's repr() of a value, as its messages quote it. */
function pythonRepr(v: Value): string {
  if (typeof v === "bigint") return v.toString();
  if (v === "tuple") return "()";
  if (typeof v === "number") return floatRepr(v);
  // complex's repr: each part without a trailing ".0", and no real part when it is +0.
  const part = (x: number): string => floatRepr(x).replace(/\.0$/, "");
  if (Object.is(v.re, 0)) return `${part(v.im)}j`;
  return `(${part(v.re)}${v.im < 0 || Object.is(v.im, -0) ? "-" : "+"}${part(Math.abs(v.im))}j)`;
}

/** Python's repr of a float: the shortest digits (as JavaScript finds them), in Python's layout. */
export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mantissa, exponentText] = x.toExponential().split("e") as [string, string];
  const exponent = Number(exponentText);
  const sign = mantissa.startsWith("-") ? "-" : "";
  const digits = mantissa.replace("-", "").replace(".", "");
  if (exponent < -4 || exponent >= 16) {
    const head = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${head}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  if (digits.length <= exponent + 1) return `${sign}${digits}${"0".repeat(exponent + 1 - digits.length)}.0`;
  return `${sign}${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`;
}

function bitLength(n: bigint): number {
  return (n < 0n ? -n : n).toString(2).length;
}

function tooLarge(): never {
  throw new PythonError(`integer too large to evaluate here (more than ${MAX_INTEGER_BITS} bits)`);
}

function checkedInt(n: bigint): bigint {
  return bitLength(n) > MAX_INTEGER_BITS ? tooLarge() : n;
}

/** Python's int-to-float conversion: correctly rounded, OverflowError past the largest double. */
function toFloat(n: bigint): number {
  const f = Number(n);
  if (!Number.isFinite(f)) throw new PythonError("int too large to convert to float");
  return f;
}

const asFloat = (v: bigint | number): number => (typeof v === "bigint" ? toFloat(v) : v);

/**
 * num / den × 2^exp2 (num, den > 0) rounded once to the nearest double, ties to even, subnormals
 * included; Infinity past the largest. Python rounds integer division and (through the C
 * library's pow) integer powers this way; JavaScript's Math.pow can be one unit in the last place off.
 */
function roundRatio(num: bigint, den: bigint, exp2: number): number {
  let e = Math.max(bitLength(num) - bitLength(den) + exp2 - 53, -1074);
  const quotient = (unit: number): [bigint, bigint, bigint] => {
    const shift = exp2 - unit;
    const n = shift >= 0 ? num << BigInt(shift) : num;
    const d = shift >= 0 ? den : den << BigInt(-shift);
    return [n / d, n % d, d];
  };
  let [q, r, d] = quotient(e);
  if (q >= 2n ** 53n) {
    e += 1;
    [q, r, d] = quotient(e);
  }
  if (2n * r > d || (2n * r === d && q % 2n === 1n)) q += 1n;
  if (e > 971 && q * 2n ** BigInt(e - 971) >= 2n ** 53n) return Number.POSITIVE_INFINITY;
  // q has at most 53 bits and q × 2^e is representable, so both steps are exact.
  return e > 971 ? Number(q) * 2 ** 971 * 2 ** (e - 971) : Number(q) * 2 ** e;
}

/** a / b for integers, as CPython's long_true_divide: one rounding of the exact quotient. */
function intTrueDivide(a: bigint, b: bigint): number {
  if (b === 0n) throw new PythonError("division by zero");
  if (a === 0n) return b < 0n ? -0 : 0;
  const result = roundRatio(a < 0n ? -a : a, b < 0n ? -b : b, 0);
  if (!Number.isFinite(result)) throw new PythonError("integer division result too large for a float");
  return a < 0n !== b < 0n ? -result : result;
}

/** A finite, nonzero, positive double as m × 2^k with an integer m. */
function decompose(x: number): [bigint, number] {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const exponent = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  return exponent === 0 ? [fraction, -1074] : [fraction | (1n << 52n), exponent - 1075];
}

/** base ** n for a positive finite base and a whole n of at most 1,024: exact, then rounded once. */
function exactPower(base: number, n: number): number {
  const [m, k] = decompose(base);
  const count = BigInt(Math.abs(n));
  return n >= 0 ? roundRatio(m ** count, 1n, k * n) : roundRatio(1n, m ** count, k * n);
}

/** CPython's float_floor_div (Objects/floatobject.c: float_divmod). */
function floatFloorDivide(vx: number, wx: number): number {
  if (wx === 0) throw new PythonError("float floor division by zero");
  let mod = vx % wx;
  let div = (vx - mod) / wx;
  if (mod !== 0 && wx < 0 !== mod < 0) {
    mod += wx;
    div -= 1;
  }
  if (div !== 0) {
    let floordiv = Math.floor(div);
    if (div - floordiv > 0.5) floordiv += 1;
    return floordiv;
  }
  return Math.sign(vx / wx) < 0 || Object.is(vx / wx, -0) ? -0 : 0;
}

const isOddInteger = (x: number): boolean => Number.isInteger(x) && Math.abs(x % 2) === 1;

/** CPython's float_pow, special cases included; a negative base to a fractional power is complex. */
function floatPower(iv: number, iw: number): number | Complex {
  if (iw === 0) return 1;
  if (Number.isNaN(iv)) return iv;
  if (Number.isNaN(iw)) return iv === 1 ? 1 : iw;
  if (!Number.isFinite(iw)) {
    const a = Math.abs(iv);
    if (a === 1) return 1;
    return iw > 0 === a > 1 ? Math.abs(iw) : 0;
  }
  if (!Number.isFinite(iv)) {
    const odd = isOddInteger(iw);
    if (iw > 0) return odd ? iv : Math.abs(iv);
    return odd ? (iv < 0 ? -0 : 0) : 0;
  }
  if (iv === 0) {
    if (iw < 0) throw new PythonError("0.0 cannot be raised to a negative power");
    return isOddInteger(iw) ? iv : 0;
  }
  let negate = false;
  let base = iv;
  if (base < 0) {
    if (iw !== Math.floor(iw)) return complexPower({ re: iv, im: 0 }, { re: iw, im: 0 });
    base = -base;
    negate = isOddInteger(iw);
  }
  if (base === 1) return negate ? -1 : 1;
  // glibc's pow is correctly rounded in practice; JavaScript's is not always, so whole
  // exponents are computed exactly and square roots by Math.sqrt (correctly rounded).
  const result =
    Number.isInteger(iw) && Math.abs(iw) <= 1024 ? exactPower(base, iw) : iw === 0.5 ? Math.sqrt(base) : base ** iw;
  if (!Number.isFinite(result)) throw new PythonError("(34, 'Numerical result out of range')");
  return negate ? -result : result;
}

const complexOf = (v: bigint | number | Complex): Complex => (isComplex(v) ? v : { re: asFloat(v), im: 0 });

function complexDivide(a: Complex, b: Complex): Complex {
  // CPython's _Py_c_quot (Smith's algorithm).
  const absBr = Math.abs(b.re);
  const absBi = Math.abs(b.im);
  if (absBr >= absBi) {
    if (absBr === 0) throw new PythonError("complex division by zero");
    const ratio = b.im / b.re;
    const denom = b.re + b.im * ratio;
    return { re: (a.re + a.im * ratio) / denom, im: (a.im - a.re * ratio) / denom };
  }
  if (absBi >= absBr) {
    const ratio = b.re / b.im;
    const denom = b.re * ratio + b.im;
    return { re: (a.re * ratio + a.im) / denom, im: (a.im * ratio - a.re) / denom };
  }
  return { re: Number.NaN, im: Number.NaN };
}

function complexPower(a: Complex, b: Complex): Complex {
  // CPython's complex_pow: small integer exponents by repeated multiplication, else polar form.
  if (b.re === 0 && b.im === 0) return { re: 1, im: 0 };
  if (a.re === 0 && a.im === 0) {
    if (b.im !== 0 || b.re < 0) throw new PythonError("0.0 to a negative or complex power");
    return { re: 0, im: 0 };
  }
  let result: Complex;
  if (b.im === 0 && Number.isInteger(b.re) && Math.abs(b.re) <= 100) {
    let n = Math.abs(b.re);
    let power = { ...a };
    result = { re: 1, im: 0 };
    while (n > 0) {
      if (n & 1)
        result = { re: result.re * power.re - result.im * power.im, im: result.re * power.im + result.im * power.re };
      power = { re: power.re * power.re - power.im * power.im, im: 2 * power.re * power.im };
      n >>= 1;
    }
    if (b.re < 0) result = complexDivide({ re: 1, im: 0 }, result);
  } else {
    const vabs = Math.hypot(a.re, a.im);
    let len = vabs ** b.re;
    const at = Math.atan2(a.im, a.re);
    let phase = at * b.re;
    if (b.im !== 0) {
      len /= Math.exp(at * b.im);
      phase += b.im * Math.log(vabs);
    }
    result = { re: len * Math.cos(phase), im: len * Math.sin(phase) };
  }
  // CPython's _Py_ADJUST_ERANGE2: an infinite part (not a NaN) is an overflow.
  if (Math.abs(result.re) === Number.POSITIVE_INFINITY || Math.abs(result.im) === Number.POSITIVE_INFINITY) {
    throw new PythonError("complex exponentiation");
  }
  return result;
}

const SYMBOL: Record<string, string> = { "+": "+", "-": "-", "*": "*", "/": "/", "//": "//", "**": "** or pow()" };

function unsupported(op: string, a: Value, b: Value): PythonError {
  return new PythonError(`unsupported operand type(s) for ${SYMBOL[op]}: '${typeName(a)}' and '${typeName(b)}'`);
}

/** A tuple times an integer: CPython's sequence repeat, which needs an index-sized count. */
function repeatTuple(count: bigint): Value {
  if (count >= 2n ** 63n || count < -(2n ** 63n)) throw new PythonError("cannot fit 'int' into an index-sized integer");
  return "tuple";
}

function binary(op: string, a: Value, b: Value): Value {
  if (a === "tuple" || b === "tuple") {
    if (op === "+" && a === "tuple" && b === "tuple") return "tuple";
    if (op === "+" && a === "tuple")
      throw new PythonError(`can only concatenate tuple (not "${typeName(b)}") to tuple`);
    if (op === "*") {
      const count = a === "tuple" ? b : a;
      if (typeof count === "bigint") return repeatTuple(count);
      throw new PythonError(`can't multiply sequence by non-int of type '${typeName(count)}'`);
    }
    throw unsupported(op, a, b);
  }
  if (isComplex(a) || isComplex(b)) {
    if (op === "//") throw unsupported(op, a, b);
    const x = complexOf(a);
    const y = complexOf(b);
    switch (op) {
      case "+":
        return { re: x.re + y.re, im: x.im + y.im };
      case "-":
        return { re: x.re - y.re, im: x.im - y.im };
      case "*":
        return { re: x.re * y.re - x.im * y.im, im: x.re * y.im + x.im * y.re };
      case "/":
        return complexDivide(x, y);
      default:
        return complexPower(x, y);
    }
  }
  if (typeof a === "bigint" && typeof b === "bigint") {
    switch (op) {
      case "+":
        return checkedInt(a + b);
      case "-":
        return checkedInt(a - b);
      case "*":
        if (bitLength(a) + bitLength(b) > MAX_INTEGER_BITS + 1) tooLarge();
        return checkedInt(a * b);
      case "/":
        return intTrueDivide(a, b);
      case "//": {
        if (b === 0n) throw new PythonError("integer division or modulo by zero");
        const q = a / b;
        return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
      }
      default: {
        if (b < 0n) return floatPower(toFloat(a), toFloat(b));
        if (a === 0n || a === 1n || a === -1n) return a === -1n && b % 2n === 0n ? 1n : b === 0n ? 1n : a;
        if (b === 0n) return 1n;
        if (BigInt(bitLength(a) - 1) * b > BigInt(MAX_INTEGER_BITS)) tooLarge();
        return checkedInt(a ** b);
      }
    }
  }
  const x = asFloat(a);
  const y = asFloat(b);
  switch (op) {
    case "+":
      return x + y;
    case "-":
      return x - y;
    case "*":
      return x * y;
    case "/":
      if (y === 0) throw new PythonError("float division by zero");
      return x / y;
    case "//":
      return floatFloorDivide(x, y);
    default:
      return floatPower(x, y);
  }
}

function evaluate(node: Node, charge: () => void): Value {
  charge();
  switch (node.kind) {
    case "number":
      return node.value;
    case "tuple":
      return "tuple";
    case "unary": {
      const v = evaluate(node.operand, charge);
      if (v === "tuple") throw new PythonError(`bad operand type for unary ${node.op}: 'tuple'`);
      if (node.op === "+") return v;
      if (typeof v === "bigint") return -v;
      if (typeof v === "number") return -v;
      return { re: -v.re, im: -v.im };
    }
    case "binary":
      return binary(node.op, evaluate(node.left, charge), evaluate(node.right, charge));
    case "starred":
      throw new PythonError("cannot use starred expression here");
    case "call": {
      const callee = evaluate(node.callee, charge);
      const argument = node.argument === null ? null : evaluate(node.argument, charge);
      if (node.starred && argument !== "tuple") {
        throw new PythonError(
          `${pythonRepr(callee)} argument after * must be an iterable, not ${typeName(argument as Value)}`,
        );
      }
      throw new PythonError(`'${typeName(callee)}' object is not callable`);
    }
  }
}

/**
 * Python's `float(eval(source))` for an arithmetic expression, or the text of the exception it
 * raises (`str(e)`, as `calculate` puts it after "Error: "). `charge` is called once per node
 * evaluated; the caller charges the length up front.
 */
export function arithmetic(source: string, charge: () => void = () => {}): ArithmeticResult {
  if (source.length > MAX_ARITHMETIC_LENGTH) {
    return { error: `expression longer than ${MAX_ARITHMETIC_LENGTH} characters` };
  }
  if (/[^0-9+\-*/(). ]/.test(source)) {
    return { error: "arithmetic() reads only digits, + - * / ( ) . and spaces" };
  }
  try {
    if (source.trim() === "") throw syntax("invalid syntax", 0);
    const tokens = tokenize(source);
    if (tokens.error !== null) throw syntax(tokens.error);
    const parsed = parse(tokens.tokens, 0);
    const tree = parsed.tree;
    if (tree === null || parsed.end !== tokens.tokens.length - 1)
      throw new PythonError(parseErrorMessage(parsed, tokens));
    // CPython's compiler refuses a starred expression in a group before anything is evaluated.
    if (hasStarredGroup(tree)) throw syntax("cannot use starred expression here");
    const value = evaluate(tree, charge);
    if (value === "tuple" || isComplex(value)) {
      throw new PythonError(`float() argument must be a string or a real number, not '${typeName(value)}'`);
    }
    return { value: asFloat(value) };
  } catch (error) {
    if (error instanceof PythonError) return { error: error.message };
    if (error instanceof RangeError) return { error: "expression too deeply nested to evaluate here" };
    throw error;
  }
}
