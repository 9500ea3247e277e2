package dev.padlock.sim.redis;

import java.util.ArrayList;
import java.util.List;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.OneArgFunction;
import org.luaj.vm2.lib.PackageLib;
import org.luaj.vm2.lib.StringLib;
import org.luaj.vm2.lib.TableLib;
import org.luaj.vm2.lib.VarArgFunction;
import org.luaj.vm2.lib.ZeroArgFunction;
import org.luaj.vm2.lib.jse.JseBaseLib;
import org.luaj.vm2.lib.jse.JseMathLib;

/**
 * What a script sees of Redis: the libraries (base, table, string, math, and Lua 5.1's global
 * {@code unpack} and 64-bit {@code %d}), the {@code redis} table, and the conversions of the Lua
 * API page: Redis to Lua (integer to number, bulk to string, nil to false, array to table,
 * status to {@code {ok=...}}, error to {@code {err=...}}) and back (number to integer truncated,
 * string to bulk, true to 1, false and nil to nil, {@code {err=...}} to an error,
 * {@code {ok=...}} to a status, any other table to an array up to its first nil).
 * Not modelled: cjson, cmsgpack, struct, bit, and Lua 5.1's {@code %.14g} in number-to-string
 * coercion (luaj writes integers in full).
 */
final class LuaBridge {

    /** A failure of the model's own code inside a script: not a Lua error, so no pcall catches it. */
    static final class ModelBug extends Error {
        private static final long serialVersionUID = 1L;

        ModelBug(RuntimeException cause) {
            super(cause);
        }

        @Override
        public synchronized RuntimeException getCause() {
            return (RuntimeException) super.getCause();
        }
    }

    /** An error reply that ends the script whatever pcall it runs in: the strict keys rule's refusal. */
    static final class Refusal extends Error {
        private static final long serialVersionUID = 1L;

        Refusal(ModelRedisException reply) {
            super(reply);
        }

        @Override
        public synchronized ModelRedisException getCause() {
            return (ModelRedisException) super.getCause();
        }
    }

    private LuaBridge() {
    }

    /** The libraries and the {@code redis} table of {@code redis}'s scripts. */
    static LuaTable globals(ModelRedis redis) {
        Globals g = new Globals();
        g.load(new JseBaseLib());
        g.load(new PackageLib());
        g.load(new TableLib());
        g.load(new StringLib());
        g.load(new JseMathLib());
        for (String unsafe : new String[] {"dofile", "loadfile", "require", "module", "package", "print"}) {
            g.set(unsafe, LuaValue.NIL);
        }
        g.set("unpack", g.get("table").get("unpack"));
        LuaTable string = g.get("string").checktable();
        string.set("format", new Lua51Format(string.get("format")));
        g.set("redis", redisTable(redis));
        return g;
    }

    private static LuaTable redisTable(ModelRedis redis) {
        boolean seven = redis.majorVersion() >= 7;
        LuaTable lib = new LuaTable();
        lib.set("call", new RedisCall(redis, true));
        lib.set("pcall", new RedisCall(redis, false));
        lib.set("error_reply", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue text) {
                String err = text.checkjstring();
                if (seven) {
                    err = err.startsWith("-") ? err.substring(1) : err;
                    err = err.indexOf(' ') < 0 ? "ERR " + err : err;
                }
                return errorTable(err);
            }
        });
        lib.set("status_reply", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue text) {
                LuaTable t = new LuaTable();
                t.set("ok", text.checkstring());
                return t;
            }
        });
        lib.set("sha1hex", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue text) {
                return LuaValue.valueOf(LuaScripting.sha1Hex(text.checkjstring()));
            }
        });
        LuaValue nothing = new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return LuaValue.NONE;
            }
        };
        lib.set("log", nothing);
        lib.set("set_repl", nothing);
        lib.set("debug", nothing);
        lib.set("replicate_commands", constant(LuaValue.TRUE));
        lib.set("breakpoint", constant(LuaValue.FALSE));
        String[] levels = {"LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING"};
        for (int i = 0; i < levels.length; i++) {
            lib.set(levels[i], i);
        }
        lib.set("REPL_NONE", 0);
        lib.set("REPL_AOF", 1);
        lib.set("REPL_SLAVE", 2);
        lib.set("REPL_REPLICA", 2);
        lib.set("REPL_ALL", 3);
        if (seven) {
            lib.set("REDIS_VERSION", "7.0.0");
            lib.set("REDIS_VERSION_NUM", 0x070000);
        }
        return lib;
    }

    private static LuaValue constant(LuaValue value) {
        return new ZeroArgFunction() {
            @Override
            public LuaValue call() {
                return value;
            }
        };
    }

    /** {@code redis.call} (raises errors) or {@code redis.pcall} (returns them as {@code {err=...}}). */
    private static final class RedisCall extends VarArgFunction {
        private final ModelRedis redis;
        private final boolean raise;

        RedisCall(ModelRedis redis, boolean raise) {
            this.redis = redis;
            this.raise = raise;
        }

        @Override
        public Varargs invoke(Varargs args) {
            try {
                List<String> argv = argv(args);
                // a Refusal (an Error) when a strict server would refuse a key: no pcall catches it
                redis.scripting().requireDeclared(argv);
                return toLua(CommandTable.dispatch(redis, argv, true));
            } catch (ModelRedisException e) {
                if (!raise) {
                    return errorTable(e.getMessage());
                }
                // Redis 7 raises the error table, Redis 6 its text
                throw new LuaError(redis.majorVersion() >= 7 ? errorTable(e.getMessage())
                        : LuaValue.valueOf(e.getMessage()));
            } catch (RuntimeException e) {
                throw new ModelBug(e);
            }
        }

        private List<String> argv(Varargs args) {
            boolean seven = redis.majorVersion() >= 7;
            if (args.narg() == 0) {
                throw new ModelRedisException(seven ? "ERR Please specify at least one argument for this redis lib call"
                        : "ERR Please specify at least one argument for redis.call()");
            }
            List<String> argv = new ArrayList<>(args.narg());
            for (int i = 1; i <= args.narg(); i++) {
                LuaValue arg = args.arg(i);
                if (arg.type() == LuaValue.TNUMBER) {
                    argv.add(RedisNumbers.formatLuaArgument(arg.todouble()));
                } else if (arg.type() == LuaValue.TSTRING) {
                    argv.add(arg.tojstring());
                } else {
                    throw new ModelRedisException(seven ? "ERR Lua redis lib command arguments must be strings or integers"
                            : "ERR Lua redis() command arguments must be strings or integers");
                }
            }
            return argv;
        }
    }

    static LuaTable errorTable(String text) {
        LuaTable t = new LuaTable();
        t.set("err", text);
        return t;
    }

    static LuaTable array(List<String> values) {
        LuaTable t = new LuaTable();
        for (int i = 0; i < values.size(); i++) {
            t.set(i + 1, LuaValue.valueOf(values.get(i)));
        }
        return t;
    }

    /** A Redis reply as a script sees it. */
    static LuaValue toLua(Object reply) {
        if (reply == null) {
            return LuaValue.FALSE;
        }
        if (reply instanceof Long n) {
            return LuaValue.valueOf((double) n);
        }
        if (reply instanceof String s) {
            return LuaValue.valueOf(s);
        }
        if (reply instanceof Status status) {
            LuaTable t = new LuaTable();
            t.set("ok", status.text());
            return t;
        }
        if (reply instanceof List<?> list) {
            LuaTable t = new LuaTable();
            for (int i = 0; i < list.size(); i++) {
                t.set(i + 1, toLua(list.get(i)));
            }
            return t;
        }
        throw new IllegalStateException("not a reply: " + reply);
    }

    /**
     * A script's return value as the reply Redis makes of it; an error table (at any depth: the
     * model does not put errors inside arrays) is thrown as the error.
     */
    static Object toRedis(LuaValue value) {
        return switch (value.type()) {
            case LuaValue.TNUMBER -> RedisNumbers.luaNumberToInteger(value.todouble());
            case LuaValue.TSTRING -> value.tojstring();
            case LuaValue.TBOOLEAN -> value.toboolean() ? 1L : null;
            case LuaValue.TTABLE -> tableToRedis(value);
            default -> null;
        };
    }

    private static Object tableToRedis(LuaValue table) {
        LuaValue err = table.get("err");
        if (err.type() == LuaValue.TSTRING) {
            throw new ModelRedisException(err.tojstring());
        }
        LuaValue ok = table.get("ok");
        if (ok.type() == LuaValue.TSTRING) {
            return new Status(ok.tojstring());
        }
        List<Object> array = new ArrayList<>();
        for (int i = 1; !table.get(i).isnil(); i++) {
            array.add(toRedis(table.get(i)));
        }
        return array;
    }
}
