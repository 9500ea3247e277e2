package dev.padlock.sim.redis;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.regex.Pattern;

/**
 * Numbers as Redis reads and writes them: integers by {@code string2ll} (no sign but '-', no
 * leading zero, no space, 64-bit), doubles by {@code strtod} and replies by C's {@code %.17g}.
 */
final class RedisNumbers {

    private static final Pattern DECIMAL = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");
    private static final Pattern INFINITY = Pattern.compile("[+-]?(?i:inf|infinity)");

    private RedisNumbers() {
    }

    /** The integer {@code text} spells as Redis's {@code string2ll} reads it, or null. */
    static Long parseLong(String text) {
        int length = text.length();
        if (length == 0 || length > 20) {
            return null;
        }
        if (length == 1 && text.charAt(0) == '0') {
            return 0L;
        }
        boolean negative = text.charAt(0) == '-';
        int i = negative ? 1 : 0;
        if (i == length || text.charAt(i) < '1' || text.charAt(i) > '9') {
            return null;
        }
        long magnitude = 0; // accumulated as a negative number, which reaches Long.MIN_VALUE
        for (; i < length; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return null;
            }
            if (magnitude < (Long.MIN_VALUE + (c - '0')) / 10) {
                return null;
            }
            magnitude = magnitude * 10 - (c - '0');
        }
        if (negative) {
            return magnitude;
        }
        return magnitude == Long.MIN_VALUE ? null : -magnitude;
    }

    /** {@link #parseLong} or the error reply "ERR value is not an integer or out of range". */
    static long requireLong(String text) {
        Long value = parseLong(text);
        if (value == null) {
            throw ModelRedisException.notInteger();
        }
        return value;
    }

    /** {@link #requireLong} that must be at least 0, else {@code "ERR " + negativeMessage}. */
    static long requireNonNegative(String text, String negativeMessage) {
        long value = requireLong(text);
        if (value < 0) {
            throw new ModelRedisException("ERR " + negativeMessage);
        }
        return value;
    }

    /**
     * The double {@code text} spells as {@code getDoubleFromObject} reads it (strtod, the whole
     * string, no leading space, no NaN, no overflow to infinity or underflow to zero), or null.
     * Hexadecimal floats, which strtod also reads, are not supported.
     */
    static Double parseDouble(String text) {
        if (INFINITY.matcher(text).matches()) {
            return text.charAt(0) == '-' ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        if (!DECIMAL.matcher(text).matches()) {
            return null;
        }
        double value = Double.parseDouble(text);
        if (Double.isInfinite(value)) {
            return null; // ERANGE: overflow
        }
        if (value == 0 && !mantissaIsZero(text)) {
            return null; // ERANGE: underflow to zero
        }
        return value;
    }

    private static boolean mantissaIsZero(String text) {
        int e = Math.max(text.indexOf('e'), text.indexOf('E'));
        String mantissa = e < 0 ? text : text.substring(0, e);
        return mantissa.chars().noneMatch(c -> c >= '1' && c <= '9');
    }

    /** {@code value} as C's {@code printf("%.17g")} writes it, and {@code inf}/{@code -inf}. */
    static String formatDouble(double value) {
        if (Double.isInfinite(value)) {
            return value > 0 ? "inf" : "-inf";
        }
        if (Double.isNaN(value)) {
            return "nan";
        }
        return formatG(value, 17);
    }

    /** C's {@code %.<precision>g} of a finite double (precision at least 1). */
    static String formatG(double value, int precision) {
        if (value == 0) {
            return (1 / value < 0) ? "-0" : "0";
        }
        BigDecimal rounded = new BigDecimal(value).round(new MathContext(precision, RoundingMode.HALF_EVEN));
        int exponent = rounded.precision() - rounded.scale() - 1;
        if (exponent < -4 || exponent >= precision) {
            BigDecimal mantissa = rounded.movePointLeft(exponent).stripTrailingZeros();
            String digits = mantissa.scale() <= 0 ? mantissa.toBigInteger().toString() : mantissa.toPlainString();
            String sign = exponent < 0 ? "-" : "+";
            int abs = Math.abs(exponent);
            return digits + "e" + sign + (abs < 10 ? "0" : "") + abs;
        }
        BigDecimal plain = rounded.stripTrailingZeros();
        return plain.scale() <= 0 ? plain.toBigInteger().toString() : plain.toPlainString();
    }

    /** A Lua number passed to {@code redis.call}: Redis formats it with {@code %.17g}. */
    static String formatLuaArgument(double value) {
        if (value == Math.rint(value) && Math.abs(value) < 1e17) {
            return Long.toString((long) value);
        }
        return formatDouble(value);
    }

    /**
     * A Lua number as Redis turns it into an integer reply: {@code (long long)} of the double,
     * truncated toward zero; out of range and NaN give {@code LLONG_MIN}, as on x86-64.
     */
    static long luaNumberToInteger(double value) {
        if (Double.isNaN(value) || value >= 0x1p63 || value < -0x1p63) {
            return Long.MIN_VALUE;
        }
        return (long) value;
    }
}
