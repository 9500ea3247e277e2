package dev.padlock.sim.engine;

import dev.padlock.sim.redis.Status;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.output.BooleanOutput;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.output.ValueOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Lettuce's asynchronous command API over a {@link ModelBackend}: the commands the engine sends
 * (scripts by {@code EVALSHA} and {@code EVAL}, and a few reads), with their replies read as
 * Lettuce reads them. Any other command fails loudly, naming itself.
 */
final class ModelCommands {
    /** Script names by SHA1, for traces. */
    private static final Map<String, String> NAMES = new java.util.concurrent.ConcurrentHashMap<>();

    static {
        for (dev.padlock.internal.script.LuaScript script : dev.padlock.internal.script.LuaScript.values()) {
            NAMES.put(script.sha1(), script.file());
        }
    }

    private ModelCommands() {
    }

    @SuppressWarnings("unchecked")
    static RedisClusterAsyncCommands<String, String> proxy(ModelBackend backend) {
        return (RedisClusterAsyncCommands<String, String>) Proxy.newProxyInstance(ModelCommands.class.getClassLoader(),
                new Class<?>[] {RedisClusterAsyncCommands.class}, (self, method, args) -> switch (method.getName()) {
                    case "evalsha" -> script(backend, "EVALSHA", (String) args[0], args);
                    case "dispatch" -> dispatched(backend, (ProtocolKeyword) args[0], (CommandOutput<?, ?, ?>) args[1],
                            (CommandArgs<?, ?>) args[2]);
                    case "eval" -> {
                        String body = args[0] instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8)
                                : (String) args[0];
                        NAMES.putIfAbsent(sha1(body), firstWord(body));
                        yield script(backend, "EVAL", body, args);
                    }
                    case "hget" -> backend.send(List.of("HGET", (String) args[0], (String) args[1]), r -> (String) r);
                    case "hexists" -> backend.send(List.of("HEXISTS", (String) args[0], (String) args[1]),
                            r -> ((Long) r) == 1L);
                    case "pttl" -> backend.send(List.of("PTTL", (String) args[0]), r -> (Long) r);
                    case "exists" -> backend.send(keysCommand("EXISTS", (String[]) args[0]), r -> (Long) r);
                    case "del" -> backend.send(keysCommand("DEL", (String[]) args[0]), r -> (Long) r);
                    case "ping" -> backend.send(List.of("PING"), r -> ((Status) r).text());
                    case "waitForReplication" -> backend.send(List.of("PING"), r -> 0L);
                    case "toString" -> "ModelCommands[" + backend.clientId() + "]";
                    case "hashCode" -> System.identityHashCode(self);
                    case "equals" -> self == args[0];
                    default -> throw new UnsupportedOperationException("the simulated Redis has no " + method.getName()
                            + ": add it to ModelCommands");
                });
    }

    /**
     * A command sent with {@code dispatch} (the engine's {@code EVALSHA}): its arguments as Lettuce
     * writes them on the wire, its reply read as the output it came with reads it.
     */
    private static Object dispatched(ModelBackend backend, ProtocolKeyword type, CommandOutput<?, ?, ?> output,
            CommandArgs<?, ?> args) {
        if (!"EVALSHA".equals(type.toString())) {
            throw new UnsupportedOperationException("the simulated Redis dispatches only EVALSHA, not " + type);
        }
        ByteBuf wire = Unpooled.buffer();
        try {
            args.encode(wire);
            List<String> call = new ArrayList<>();
            call.add("EVALSHA");
            while (wire.isReadable()) {
                call.add(bulkString(wire));
            }
            return backend.send(call, output(outputType(output)));
        } finally {
            wire.release();
        }
    }

    /** One {@code $<length>\r\n<bytes>\r\n} off {@code wire}. */
    private static String bulkString(ByteBuf wire) {
        if (wire.readByte() != '$') {
            throw new IllegalStateException("not a bulk string at " + wire.readerIndex());
        }
        int length = 0;
        for (byte b = wire.readByte(); b != '\r'; b = wire.readByte()) {
            length = length * 10 + (b - '0');
        }
        wire.skipBytes(1);
        String text = wire.toString(wire.readerIndex(), length, StandardCharsets.UTF_8);
        wire.skipBytes(length + 2);
        return text;
    }

    private static ScriptOutputType outputType(CommandOutput<?, ?, ?> output) {
        if (output instanceof IntegerOutput) {
            return ScriptOutputType.INTEGER;
        }
        if (output instanceof NestedMultiOutput) {
            return ScriptOutputType.MULTI;
        }
        if (output instanceof ValueOutput) {
            return ScriptOutputType.VALUE;
        }
        if (output instanceof StatusOutput) {
            return ScriptOutputType.STATUS;
        }
        if (output instanceof BooleanOutput) {
            return ScriptOutputType.BOOLEAN;
        }
        throw new UnsupportedOperationException("the simulated Redis cannot read " + output.getClass().getSimpleName());
    }

    private static List<String> keysCommand(String name, String[] keys) {
        List<String> command = new ArrayList<>();
        command.add(name);
        command.addAll(List.of(keys));
        return command;
    }

    private static Object script(ModelBackend backend, String command, String scriptOrSha, Object[] args) {
        ScriptOutputType type = (ScriptOutputType) args[1];
        String[] keys = (String[]) args[2];
        String[] values = args.length > 3 && args[3] != null ? (String[]) args[3] : new String[0];
        List<String> call = new ArrayList<>();
        call.add(command);
        call.add(scriptOrSha);
        call.add(Integer.toString(keys.length));
        call.addAll(List.of(keys));
        call.addAll(List.of(values));
        return backend.send(call, output(type));
    }

    /** How Lettuce reads a script's reply of each output type. */
    private static Function<Object, Object> output(ScriptOutputType type) {
        return switch (type) {
            case BOOLEAN -> r -> r instanceof Long l ? l == 1L : r != null;
            case INTEGER -> r -> {
                if (r != null && !(r instanceof Long)) {
                    throw new RedisCommandExecutionException("not an integer reply: " + r);
                }
                return r;
            };
            case MULTI -> ModelCommands::multi;
            case STATUS -> r -> r instanceof Status s ? s.text() : r;
            case VALUE -> r -> r instanceof Long l ? l.toString() : r instanceof Status s ? s.text() : r;
            default -> r -> r;
        };
    }

    private static Object multi(Object reply) {
        if (reply instanceof List<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            for (Object element : list) {
                out.add(element instanceof List ? multi(element) : element instanceof Status s ? s.text() : element);
            }
            return out;
        }
        return reply instanceof Status s ? s.text() : reply;
    }

    static String scriptName(String sha) {
        return NAMES.getOrDefault(sha, sha.length() == 40 ? sha.substring(0, 8) : firstWord(sha));
    }

    private static String firstWord(String body) {
        // the scripts open with "-- <name>: ..."
        if (body.startsWith("-- ")) {
            int colon = body.indexOf(':');
            if (colon > 3 && colon < 40) {
                return body.substring(3, colon);
            }
        }
        return "script";
    }

    static String sha1(String body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(body.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
