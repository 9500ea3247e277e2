package dev.padlock.sim.redis;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * {@code string.format} as Lua 5.1 (Redis's Lua) has it for {@code %d} and {@code %i}: the number
 * as a 64-bit integer, where luaj's own truncates it to 32 bits (an epoch in milliseconds would
 * wrap). Every other conversion goes to luaj's {@code string.format}, one at a time.
 */
final class Lua51Format extends VarArgFunction {

    private static final String FLAGS = "-+ #0";

    private final LuaValue luajFormat;

    Lua51Format(LuaValue luajFormat) {
        this.luajFormat = luajFormat;
    }

    @Override
    public Varargs invoke(Varargs args) {
        String format = args.checkjstring(1);
        StringBuilder out = new StringBuilder();
        int arg = 2;
        for (int i = 0; i < format.length(); i++) {
            char c = format.charAt(i);
            if (c != '%') {
                out.append(c);
                continue;
            }
            if (i + 1 < format.length() && format.charAt(i + 1) == '%') {
                out.append('%');
                i++;
                continue;
            }
            int start = i++;
            while (i < format.length() && FLAGS.indexOf(format.charAt(i)) >= 0) {
                i++;
            }
            while (i < format.length() && (Character.isDigit(format.charAt(i)) || format.charAt(i) == '.')) {
                i++;
            }
            if (i >= format.length()) {
                throw new LuaError("invalid option '%' to 'format'");
            }
            String spec = format.substring(start, i + 1);
            char conversion = format.charAt(i);
            if (conversion == 'd' || conversion == 'i') {
                out.append(formatInteger(spec, (long) args.checkdouble(arg++)));
            } else {
                out.append(luajFormat.invoke(LuaValue.varargsOf(LuaValue.valueOf(spec), args.arg(arg++)))
                        .arg1().tojstring());
            }
        }
        return LuaValue.valueOf(out.toString());
    }

    /** C's {@code printf} of one {@code %[flags][width][.precision]d}. */
    static String formatInteger(String spec, long value) {
        String body = spec.substring(1, spec.length() - 1);
        int f = 0;
        while (f < body.length() && FLAGS.indexOf(body.charAt(f)) >= 0) {
            f++;
        }
        String flags = body.substring(0, f);
        String sizes = body.substring(f);
        int dot = sizes.indexOf('.');
        int width = parse(dot < 0 ? sizes : sizes.substring(0, dot));
        int precision = dot < 0 ? -1 : parse(sizes.substring(dot + 1));
        String digits = value == Long.MIN_VALUE ? "9223372036854775808" : Long.toString(Math.abs(value));
        if (precision == 0 && value == 0) {
            digits = "";
        }
        while (digits.length() < precision) {
            digits = "0" + digits;
        }
        String sign = value < 0 ? "-" : flags.indexOf('+') >= 0 ? "+" : flags.indexOf(' ') >= 0 ? " " : "";
        int pad = width - sign.length() - digits.length();
        if (pad <= 0) {
            return sign + digits;
        }
        if (flags.indexOf('-') >= 0) {
            return sign + digits + " ".repeat(pad);
        }
        if (flags.indexOf('0') >= 0 && precision < 0) {
            return sign + "0".repeat(pad) + digits;
        }
        return " ".repeat(pad) + sign + digits;
    }

    private static int parse(String number) {
        return number.isEmpty() ? 0 : Integer.parseInt(number);
    }
}
