/* Number formatting and unit parsing for the live report: ports of genreport.present.fmt (GR_FMT) and of
   genreport.load.units with objects.tokens (GR_UNITS), giving the same strings, values and error texts as the
   Python they copy. Python formats a float from its exact binary value and rounds ties half to even, while
   JavaScript's toFixed/toPrecision round ties up, so the digits are made here from the exact value (every
   double is a finite decimal: m * 2^e = m * 5^-e / 10^-e) with BigInt. Numbers in, strings out; a value
   Python's float() or int() would reject throws an Error with Python's message. */

const GR_FMT = (() => {
  "use strict";
  const GB = 1e9, GiB = 2 ** 30;
  const view = new DataView(new ArrayBuffer(8));

  // |x| = n * 10^e exactly, n a BigInt.
  function exactDecimal(x) {
    view.setFloat64(0, Math.abs(x));
    const hi = view.getUint32(0), lo = view.getUint32(4);
    let m = BigInt(hi & 0xfffff) * 4294967296n + BigInt(lo), e = hi >>> 20;
    if (e) m += 1n << 52n; else e = 1;  // normal numbers have the hidden bit; subnormals the least exponent
    e -= 1075;
    return e >= 0 ? [m << BigInt(e), 0] : [m * 5n ** BigInt(-e), e];
  }

  // n / 10^k rounded half to even (k > 0), or n * 10^-k.
  function shift(n, k) {
    if (k <= 0) return n * 10n ** BigInt(-k);
    const d = 10n ** BigInt(k), q = n / d, r2 = n % d * 2n;
    return r2 > d || (r2 === d && q % 2n === 1n) ? q + 1n : q;
  }

  // The digits of |x| rounded to `sig` significant digits, and the decimal exponent of the first one.
  function significant(x, sig) {
    const [n, e] = exactDecimal(x);
    if (n === 0n) return ["0".repeat(sig), 0];
    const len = n.toString().length;
    let digits = shift(n, len - sig).toString(), exp = len - 1 + e;
    if (digits.length > sig) { digits = digits.slice(0, sig); exp += 1; }  // 9.99 -> 10.0: one more place
    return [digits, exp];
  }

  // Python's repr(float) digits: the shortest that read back, as JavaScript's also are.
  function shortest(x) {
    const [mant, exp] = Math.abs(x).toExponential().split("e");
    return [mant.replace(".", ""), Number(exp)];
  }

  const group = int => int.replace(/\B(?=(\d{3})+$)/g, ",");

  /* format(x, spec) is Python's format(x, spec) for a float and the specs the report uses: '.Nf', '.Ne',
     '.Ng', each with an optional ',' before the '.', and '' or ',' (str(x), repr). */
  function format(x, spec) {
    const [, comma, alt, p, type] = /^(,?)(#?)(?:\.(\d+))?([efg]?)$/.exec(spec);
    if (Number.isNaN(x)) return "nan";
    const sign = x < 0 || Object.is(x, -0) ? "-" : "";
    if (!Number.isFinite(x)) return sign + "inf";
    let int, frac, exp;  // the digits before and after the point, and the exponent in 'e' form (or none)
    if (type === "f") {
      const places = Number(p), [n, e] = exactDecimal(x);
      const digits = shift(n, -e - places).toString().padStart(places + 1, "0");
      [int, frac] = [digits.slice(0, digits.length - places), digits.slice(digits.length - places)];
    } else if (type === "e") {
      const [digits, e] = significant(x, Number(p) + 1);
      [int, frac, exp] = [digits[0], digits.slice(1), e];
    } else {  // 'g' and repr: 'e' form outside 1e-4 <= |x| < 10^precision (repr: 1e16), trailing zeros dropped
      const sig = type === "g" ? Math.max(Number(p || 6), 1) : 16;
      const [digits, e] = type === "g" ? significant(x, sig) : shortest(x);
      if (e < -4 || e >= sig) {
        [int, frac, exp] = [digits[0], digits.slice(1), e];
      } else if (e >= 0) {
        const whole = digits.padEnd(e + 1, "0");
        [int, frac] = [whole.slice(0, e + 1), whole.slice(e + 1)];
      } else {
        [int, frac] = ["0", "0".repeat(-e - 1) + digits];
      }
      if (!alt) frac = frac.replace(/0+$/, "");  // '#': Python's alternate form keeps them
      if (type === "" && exp === undefined && !frac) frac = "0";  // repr keeps '.0' on a whole number
    }
    const tail = exp === undefined ? "" : "e" + (exp < 0 ? "-" : "+") + String(Math.abs(exp)).padStart(2, "0");
    return sign + (comma ? group(int) : int) + (frac || alt ? "." + frac : "") + tail;
  }

  // Python's float(x) for a number (or None), and int(x) / round(x) of a float, as text.
  const none = x => x === null || x === undefined;
  function float(x) {
    if (none(x)) throw new Error("float() argument must be a string or a real number, not 'NoneType'");
    return Number(x);
  }
  function finite(x) {
    if (Number.isNaN(x)) throw new Error("cannot convert float NaN to integer");
    if (!Number.isFinite(x)) throw new Error("cannot convert float infinity to integer");
    return x;
  }
  const isInt = x => finite(x) === Math.trunc(x);  // x == int(x)
  const intText = x => format(Math.trunc(finite(x)), ".0f").replace(/^-0$/, "0");
  const roundText = x => format(finite(x), ".0f").replace(/^-0$/, "0");
  const strip = s => s.replace(/0+$/, "").replace(/\.+$/, "");  // s.rstrip("0").rstrip(".")

  function num(x, sig = 3) {
    if (none(x)) return "n/a";
    x = float(x);
    if (!Number.isFinite(x)) return x > 0 ? "∞" : "n/a";
    if (x === Math.trunc(x) && Math.abs(x) < 1e15) return group(intText(x));
    if (Math.abs(x) >= 10) return group(roundText(x));
    if (Math.abs(x) >= 1) return strip(format(x, `.${sig - 1}f`));
    return Math.abs(x) >= 1e-4 ? format(x, `.${sig}g`) : format(x, ".2e");
  }

  const exact = (x, digits = 2) => (none(x) ? "n/a" : format(float(x), `,.${digits}f`));
  const integer = x => (none(x) || !Number.isFinite(float(x)) ? "n/a" : group(intText(x)));

  function sig4(x) {
    if (Math.abs(x) >= 1e4) return group(roundText(x));
    const s = format(x, ".4g");
    if (s.includes("e")) return s;
    const v = Number(s);
    return isInt(v) ? group(intText(v)) : format(v, ",");
  }

  const gb = x => `${sig4(float(x) / GB)} GB`;
  const gib = x => `${sig4(float(x) / GiB)} GiB`;
  const kib = x => `${sig4(float(x) / 1024)} KiB`;

  function size(x) {
    x = float(x);
    if (x < 1e6) return x >= 1024 * 10 || isInt(x) ? `${format(x, ",.0f")} B` : `${format(x, ".3g")} B`;
    return `${gb(x)} (${gib(x)})`;
  }

  // fmt.time: three significant digits, a trailing zero written unless the value is exactly the shorter number
  function time(t) {
    if (none(t)) return "n/a";
    t = float(t);
    const ms = t * 1e3;
    if (t >= 1 || (ms >= 0.01 && Number(format(ms, ".3g")) >= 1e3)) return `${sig3(t)} s`;
    return ms >= 0.01 ? `${sig3(ms)} ms` : `${sig3(ms * 1e3)} µs`;
  }
  // fmt.elasticity: 0 where the input does not enter, ≈0 below 0.0005, else three significant digits
  function elasticity(v) {
    if (none(v)) return "";
    v = float(v);
    if (v === 0) return "0";
    return Math.abs(v) < 5e-4 ? "≈0" : format(v, ".3g");
  }
  // fmt.micro: seconds in microseconds, three significant digits
  const micro = t => none(t) ? "n/a" : `${sig3(float(t) * 1e6)} µs`;
  // fmt.sig3: three significant digits with their trailing zeros unless exact, the whole number from 1,000 up
  function sig3(x) {
    if (none(x)) return "n/a";
    x = float(x);
    const s = format(x, ".3g");
    if (s.includes("e") && Math.abs(x) >= 1 && Number.isFinite(x)) return group(roundText(x));
    if (s.includes("e") || Math.abs(Number(s) - x) <= 1e-9 * Math.abs(x)) return s;
    return format(x, "#.3g").replace(/\.$/, "");
  }

  // fmt.dollars: sig3, but an amount under 1e-4 in fixed notation ("0.0000123", not "1.23e-05")
  function dollars(x) {
    if (none(x)) return "n/a";
    x = float(x);
    const rounded = Number.isFinite(x) ? Number(format(x, ".3g")) : x;
    if (!Number.isFinite(x) || x === 0 || Math.abs(rounded) >= 1e-4) return sig3(x);
    const full = format(x, "." + (2 - Math.floor(Math.log10(Math.abs(rounded)))) + "f");
    const short = full.replace(/0+$/, "");
    return Math.abs(Number(short) - x) <= 1e-9 * Math.abs(x) ? short : full;
  }

  function rate(x, unit = "FLOP/s") {
    x = float(x);
    for (const [scale, prefix] of [[1e15, "P"], [1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]]) {
      if (Math.abs(x) >= scale) return `${format(x / scale, ",.4g")} ${prefix}${unit}`;
    }
    return `${format(x, ".4g")} ${unit}`;
  }

  function params(x) {
    x = float(x);
    if (x >= 1e9) return `${format(x / 1e9, ".4g")}B`;
    if (x >= 1e6) return `${format(x / 1e6, ".4g")}M`;
    return format(x, ",.0f");
  }

  const pct = (x, digits = 1) => `${format(100 * float(x), `.${digits}f`)}%`;
  // fmt.share: a share strictly between 0 and 1 never reads 0% or 100%
  function share(x) {
    x = float(x);
    if (x > 0 && x < 0.1) return 100 * x < 0.01 ? "under 0.01%" : `${format(100 * x, ".2g")}%`;
    if (x > 0.99 && x < 1) return format(100 * x, ".4g") === "100" ? "over 99.99%" : `${format(100 * x, ".4g")}%`;
    return `${format(100 * x, ".0f")}%`;
  }

  function times(x) {
    x = float(x);
    return x < 100 ? `${format(x, ".3g")}×` : `${group(roundText(x))}×`;
  }

  function tex_number(x) {
    x = float(x);
    if (isInt(x) && Math.abs(x) < 1e7) return intText(x);
    if (Math.abs(x) >= 1e5 || Math.abs(x) < 1e-3) {
      const [mant, exp] = format(x, ".6e").split("e");
      return `${strip(mant)} \\times 10^{${Number(exp)}}`;
    }
    return format(x, ".6g");
  }

  /** fmt._scaled: [digits, unit, exact] of b in the largest unit it reaches, four significant digits. */
  function scaled(b, base, units) {
    let v = b, k = 0;
    while (v >= base && k < units.length - 1) {
      v /= base;
      k += 1;
    }
    const text = format(v, ".4g");
    return [text, units[k], Number(text) * base ** k === b];
  }

  /** fmt.memsize: binary units where 1024 divides the size, unless only the decimal ones give it exactly. */
  function memsize(b) {
    if (none(b)) return "n/a";
    b = float(b);
    const binary = isInt(b) && b % 1024 === 0 ? scaled(b, 1024, ["B", "KiB", "MiB", "GiB", "TiB"]) : null;
    const decimal = scaled(b, 1000, ["B", "KB", "MB", "GB", "TB"]);
    const [text, unit] = binary !== null && (binary[2] || !decimal[2]) ? binary : decimal;
    return `${text} ${unit}`;
  }

  const nearest = x => (none(x) || !Number.isFinite(float(x)) ? "n/a" : group(roundText(float(x))));

  /** ``text`` with the project's word for one device, "GPU", as the hardware's ``noun`` (fmt.device): capitalized
   * where it starts a sentence; "NVIDIA GPUs", "AMD GPUs" and "GPU utilisation" stay. */
  function device(text, noun = "GPU") {
    if (noun === "GPU" || typeof text !== "string" || !/GPU|[Cc]ard/.test(text)) return text;
    // "card" ("cards", "card's") is a GPU's word too and says the noun likewise; "model card" stays (fmt.device)
    const sub = (s, re) => s.replace(re, function (m, at) {
      const before = s.slice(0, at).trimEnd();
      return !before || /[.!?]$/.test(before) || m === "Card" ? noun.charAt(0).toUpperCase() + noun.slice(1) : noun;
    });
    return sub(sub(text, /(?<![A-Za-z0-9_])(?<!NVIDIA )(?<!AMD )GPU(?=s?(?![A-Za-z0-9_]))(?! utilisation)/g),
      /(?<![A-Za-z0-9_])(?<![Mm]odel )[Cc]ard(?=s?(?![A-Za-z0-9_]))/g);
  }

  return {
    num, exact, integer, sig4, gb, gib, size, kib, time, micro, sig3, dollars, elasticity, rate, bandwidth: x => rate(x, "B/s"), flops: x => rate(x, "FLOP"),
    params, pct, times, share, memsize, nearest, tex_number, format, GB, GiB, device,
  };
})();

const GR_UNITS = (() => {
  "use strict";
  const BYTES = [1, 0, 0], FLOPS_COUNT = [0, 1, 0], SECONDS = [0, 0, 1];
  const RATE_BYTES = [1, 0, -1], RATE_FLOP = [0, 1, -1], DIMENSIONLESS = [0, 0, 0];
  const DIM_NAMES = new Map([
    [BYTES, ["a size", "B", '"80 GiB"']],
    [RATE_BYTES, ["a bandwidth", "B/s", '"3.35 TB/s"']],
    [RATE_FLOP, ["a compute rate", "FLOP/s", '"989.4 TFLOP/s"']],
    [FLOPS_COUNT, ["an amount of work", "FLOP", '"16.06 GFLOP"']],
    [SECONDS, ["a time", "s", '"4.79 ms"']],
    [DIMENSIONLESS, ["a plain number", "", "4096"]],
  ].map(([dim, name]) => [String(dim), name]));

  const DECIMAL = new Map([["k", 1e3], ["K", 1e3], ["M", 1e6], ["G", 1e9], ["T", 1e12], ["P", 1e15], ["E", 1e18]]);
  const BINARY = [["Ki", 2 ** 10], ["Mi", 2 ** 20], ["Gi", 2 ** 30], ["Ti", 2 ** 40], ["Pi", 2 ** 50]];
  const TIME = new Map([["s", 1], ["ms", 1e-3], ["us", 1e-6], ["µs", 1e-6], ["ns", 1e-9], ["min", 60], ["h", 3600]]);
  const BASE = new Map([  // base unit name -> [scale, dimension]
    ["B", [1, BYTES]], ["byte", [1, BYTES]], ["bytes", [1, BYTES]], ["bit", [0.125, BYTES]], ["bits", [0.125, BYTES]],
    ["FLOP", [1, FLOPS_COUNT]], ["FLOPs", [1, FLOPS_COUNT]], ["OP", [1, FLOPS_COUNT]], ["OPs", [1, FLOPS_COUNT]],
    // "FLOPS" and "OPS" (capital S) are rates, as on datasheets.
    ["FLOPS", [1, RATE_FLOP]], ["OPS", [1, RATE_FLOP]], ["TOPS", [1e12, RATE_FLOP]],
  ]);

  // Python's \s and str.strip() whitespace, and its \d (any Unicode decimal digit, which float() reads too).
  const WS = "\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
  const NUMBER = "[+-]?(?:\\p{Nd}+(?:\\.\\p{Nd}*)?|\\.\\p{Nd}+)(?:[eE][+-]?\\p{Nd}+)?|[+-]?(?:[iI][nN][fF]|[nN][aA][nN])";
  const QTY = new RegExp(`^[${WS}]*(${NUMBER})[${WS}]*([^${WS}][^\\n]*?)?[${WS}]*$`, "u");
  const STRIP = new RegExp(`^[${WS}]+|[${WS}]+$`, "gu");
  const pyStrip = s => s.replace(STRIP, "");
  const MAX_CHARS = 100;  // a quantity is a number and a unit: '3.35 TB/s'

  function unitError(message) {
    const error = new Error(message);
    error.name = "UnitError";
    return error;
  }

  // Python's float() of a string that NUMBER matched.
  function asciiDigits(text) {
    return text.replace(/(?![0-9])\p{Nd}/gu, c => {  // a decimal digit's value is its place in its run of ten
      let k = 0;
      while (/\p{Nd}/u.test(String.fromCodePoint(c.codePointAt(0) - k - 1))) k += 1;
      return String(k % 10);
    });
  }

  function pyFloat(text) {
    const ascii = asciiDigits(text);
    return /inf/i.test(ascii) ? (ascii[0] === "-" ? -Infinity : Infinity) : /nan/i.test(ascii) ? NaN : Number(ascii);
  }

  // A decimal number's text as [sign, digits, exponent of ten] (BigInt digits): "-1.25e3" is [-1n, 125n, 1].
  function decimalParts(text) {
    const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
    const whole = m[2] || "", frac = m[3] || "";
    return [m[1] === "-" ? -1n : 1n, BigInt(whole + frac || "0"), Number(m[4] || 0) - frac.length];
  }

  // The number's text times a unit's scale in decimal, rounded once (units.parse: Decimal(number) * Decimal(repr(scale))):
  // "2.039 TB/s" is 2,039,000,000,000 B/s, not the float product's 2039000000000.0002. A scale's shortest text
  // (String, Python's repr) is its exact decimal.
  function scaled(text, scale) {
    const ascii = asciiDigits(text);
    if (/inf|nan/i.test(ascii)) return pyFloat(text) * scale;
    const [s1, d1, e1] = decimalParts(ascii), [s2, d2, e2] = decimalParts(String(scale));
    return Number((s1 * s2 < 0n ? "-" : "") + String(d1 * d2) + "e" + (e1 + e2));
  }

  // Python's str() / repr() of a non-string value, for messages (a whole number counts as an int).
  function pyStr(value) {
    if (value === null || value === undefined) return "None";
    if (typeof value === "boolean") return value ? "True" : "False";
    if (typeof value === "number") return Number.isInteger(value) ? String(value) : GR_FMT.format(value, "");
    return String(value);
  }

  function unitFactor(token) {
    if (TIME.has(token)) return [TIME.get(token), SECONDS];
    if (BASE.has(token)) return BASE.get(token);
    for (const [prefix, scale] of BINARY) {
      const rest = token.slice(prefix.length);
      if (token.startsWith(prefix) && BASE.has(rest) && BASE.get(rest)[1] === BYTES) return [scale * BASE.get(rest)[0], BYTES];
    }
    if (token.length > 1 && DECIMAL.has(token[0]) && BASE.has(token.slice(1))) {
      const [baseScale, dim] = BASE.get(token.slice(1));
      return [DECIMAL.get(token[0]) * baseScale, dim];
    }
    let hint = "";
    if (["b", "gb", "tb", "mb", "kb"].includes(token.toLowerCase()) && token !== token.toUpperCase()) {
      hint = " (write B for bytes: lowercase b is ambiguous with bits)";
    } else if (token.toLowerCase().endsWith("flops")) {
      hint = " (write FLOP/s, e.g. '989.4 TFLOP/s')";
    }
    throw unitError(`unknown unit '${token}'${hint}`);
  }

  function parseUnit(text) {
    text = pyStrip(text);
    if (!text) return [1, DIMENSIONLESS];
    const parts = text.split("/");
    if (parts.some(p => !pyStrip(p)) || parts.length > 2) throw unitError(`cannot read unit '${text}'`);
    let [scale, dim] = unitFactor(pyStrip(parts[0]));
    if (parts.length === 2) {
      const [s2, d2] = unitFactor(pyStrip(parts[1]));
      [scale, dim] = [scale / s2, dim.map((d, i) => d - d2[i])];
    }
    return [scale, dim];
  }

  // A quantity string as {value (SI), dim, text}.
  function parse(text) {
    if (typeof text !== "string") throw unitError(`expected a quantity string like '3.35 TB/s', got ${pyStr(text)}`);
    const chars = Array.from(text);  // Python counts code points
    if (chars.length > MAX_CHARS) {
      throw unitError(`'${chars.slice(0, 20).join("")}...' is ${GR_FMT.exact(chars.length, 0)} characters, too long for a quantity; write e.g. '3.35 TB/s'`);
    }
    // a comma or an underscore in the number (units.parse): it read "unknown unit ',35 TB'"
    if (/^\s*[+-]?\d+,\d/.test(text)) {
      if (/^\s*[+-]?\d{1,3}(,\d{3})+(?![\d.,])/.test(text)) {
        const plain = pyStrip(text).replace(/(?<=\d),(?=\d{3})/g, "");
        throw unitError(`cannot read '${text}': a comma in the number; write it without one, e.g. '${plain}' (a decimal point for a fraction)`);
      }
      throw unitError(`cannot read '${text}': a decimal comma; write a point, e.g. '${pyStrip(text).replace(/(?<=\d),(?=\d)/, ".")}'`);
    }
    if (/^\s*[+-]?\d+(_\d+)+/.test(text)) {
      throw unitError(`cannot read '${text}': an underscore in the number; write it without one, e.g. '${pyStrip(text).replace(/(?<=\d)_(?=\d)/g, "")}'`);
    }
    const m = QTY.exec(text);
    if (!m) throw unitError(`cannot read '${text}': write a number and a unit, e.g. '3.35 TB/s'`);
    const [scale, dim] = parseUnit(m[2] || "");
    return {value: scaled(m[1], scale), dim, text};
  }

  function describe(dim) {
    const name = DIM_NAMES.get(String(dim));
    if (name) return name[1] ? `${name[0]} (${name[1]})` : name[0];
    return `B^${dim[0]} FLOP^${dim[1]} s^${dim[2]}`;
  }

  function expect(text, dim) {
    const q = parse(text);
    if (String(q.dim) !== String(dim)) {
      const want = DIM_NAMES.get(String(dim));
      throw unitError(`'${text}' is ${describe(q.dim)}, but this field needs ${want[0]} in ${want[1]}, e.g. ${want[2]}`);
    }
    if (!Number.isFinite(q.value)) throw unitError(`'${text}' is not a finite number`);
    return q;
  }

  // objects.tokens: a token count from 2048 or '2k' (k = 1024, M = 1024^2).
  const MAX_TOKENS = 100000000;  // the schema's maximum for integer token counts
  function tokens(value) {
    if (typeof value === "boolean") throw new Error("not a count");
    if (Number.isInteger(value)) return value;
    const text = typeof value === "string" ? value : pyStr(value);
    const m = /^((?:[1-9][0-9]*|0(?=\.[0-9]*[1-9]))(?:\.[0-9]+)?)([kKmM]?)$/.exec(pyStrip(text));
    if (!m) throw new Error(`'${text}' is not a token count`);
    const out = Number(m[1]) * {"": 1, k: 1024, K: 1024, m: 1024 ** 2, M: 1024 ** 2}[m[2]];
    if (!(out <= MAX_TOKENS)) throw new Error(`'${text}' is more than ${GR_FMT.exact(MAX_TOKENS, 0)} tokens`);
    if (out !== Math.trunc(out)) throw new Error(`'${text}' is not a whole number of tokens`);
    return out;
  }

  return {
    BYTES, FLOPS_COUNT, SECONDS, RATE_BYTES, RATE_FLOP, DIMENSIONLESS, MAX_CHARS, MAX_TOKENS,
    parse, parse_unit: parseUnit, expect, describe, tokens,
  };
})();
