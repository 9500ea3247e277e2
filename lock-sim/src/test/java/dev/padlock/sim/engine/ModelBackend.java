package dev.padlock.sim.engine;

import dev.padlock.internal.redis.RedisBackend;
import dev.padlock.internal.redis.RedisErrors;
import dev.padlock.sim.redis.ModelRedisException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A client's {@link RedisBackend} on the {@link SimServer}: a command connection and a pub/sub
 * connection, each in order both ways, as Lettuce's are, over the simulated {@link Network}.
 *
 * <p>What Lettuce does, it does too: a command unanswered within the command timeout fails with
 * {@link RedisCommandTimeoutException} (it may still run, later: its reply is then dropped); a
 * dropped connection fails what was in flight with {@link RedisConnectionException} (each of those
 * calls ran or not, by chance), reconnects after a while and subscribes again; while it is down,
 * scripts fail at once (Padlock's replay filter) and plain commands wait for the reconnect.
 */
public final class ModelBackend implements RedisBackend {
    private final SimServer server;
    private final World world;
    private final World.Actor actor;
    private final String clientId;
    private final long commandTimeoutNanos;
    private final RedisClusterAsyncCommands<String, String> commands;
    private final Set<String> channels = new LinkedHashSet<>();
    private final Set<Call<?>> inFlight = new LinkedHashSet<>();
    private final List<Runnable> waitingForConnection = new ArrayList<>();
    /** Messages on their way to this client, with their channels. */
    private final Map<World.Event, String> messagesOnTheWay = new LinkedHashMap<>();
    private PubSubEvents events;
    /** Calls whose reply the client never read: timed out, or dropped with the connection. */
    private long lostReplies;
    /** Pub/sub messages published to this client that it never heard: lost on the way, or with a dropped connection. */
    private long lostMessages;
    /** The keys and hash tags that a lost reply or message of this client was about. */
    private final Set<String> lostAbout = new java.util.HashSet<>();
    /** The script calls whose reply this client lost (they ran on Redis or not), by lock-lua name. */
    private final List<List<String>> lostScripts = new ArrayList<>();
    private boolean connected = true;
    private long generation;
    private long commandUp;
    private long commandDown;
    private long pubSubUp;
    private long pubSubDown;

    public ModelBackend(SimServer server, World.Actor actor, String clientId, long commandTimeoutMillis) {
        this.server = server;
        this.world = server.world();
        this.actor = actor;
        this.clientId = clientId;
        this.commandTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(commandTimeoutMillis);
        this.commands = ModelCommands.proxy(this);
        server.attach(clientId, this);
    }

    String clientId() {
        return clientId;
    }

    /** How many messages published to this client it never heard, so far. */
    public long lostMessages() {
        return lostMessages;
    }

    /**
     * Whether a reply or message this client lost was about the lock {@code name} (its hash, or a
     * key or channel of its hash tag).
     */
    public boolean lostAbout(String name) {
        return lostAbout.contains(name);
    }

    private void lostReply(Call<?> call) {
        lostReplies++;
        List<String> command = call.command;
        lostAbout.add(call.script() ? command.get(3) : command.size() > 1 ? command.get(1) : "");
        if (call.script()) {
            lostScripts.add(named(command));
        }
    }

    /** The script calls whose reply this client lost so far (each ran on Redis, or not), by lock-lua name. */
    public List<List<String>> lostScripts() {
        return lostScripts;
    }

    private void lostMessage(String channel) {
        lostMessages++;
        int open = channel.indexOf('{');
        int close = channel.indexOf('}', open + 1);
        lostAbout.add(open >= 0 && close > open ? channel.substring(open + 1, close) : channel);
    }

    /** How many calls of this client lost their reply so far. */
    public long lostReplies() {
        return lostReplies;
    }

    /** One command on the command connection, from the client's send to its reply. */
    private final class Call<T> {
        final List<String> command;
        final Function<Object, T> reply;
        final SimFuture<T> future = new SimFuture<>();
        World.Event run;
        World.Event answer;
        World.Event timeout;

        Call(List<String> command, Function<Object, T> reply) {
            this.command = command;
            this.reply = reply;
        }

        boolean script() {
            String name = command.get(0);
            return name.equalsIgnoreCase("EVAL") || name.equalsIgnoreCase("EVALSHA");
        }

        /** Whether the call may set a lock's lease: a script that writes (not the token or lock reads). */
        boolean setsLease() {
            if (!script()) {
                return false;
            }
            String name = named(command).get(1);
            return !name.equals("fenced_token") && !name.equals("rw_read_locked");
        }
    }

    /** Sends {@code command}; its reply is read by {@code reply}. */
    <T> SimFuture<T> send(List<String> command, Function<Object, T> reply) {
        Call<T> call = new Call<>(command, reply);
        call.timeout = world.at(world.nanoTime() + commandTimeoutNanos, actor, "timeout " + command.get(0), () -> {
            inFlight.remove(call);
            lostReply(call);
            if (call.answer != null) {
                call.answer.cancel();
            }
            call.future.fail(new RedisCommandTimeoutException("Command timed out after "
                    + TimeUnit.NANOSECONDS.toMillis(commandTimeoutNanos) + " millisecond(s)"));
        });
        if (connected) {
            transmit(call);
        } else if (call.script()) {
            lostReply(call); // the caller cannot tell this from a call that was sent and lost
            world.at(world.nanoTime(), actor, "refused " + command.get(0), () -> fail(call, notConnected()));
        } else {
            waitingForConnection.add(() -> transmit(call));
        }
        return call.future;
    }

    private <T> void transmit(Call<T> call) {
        if (call.future.isDone()) {
            return;
        }
        inFlight.add(call);
        long sentIn = generation;
        commandUp = Math.max(commandUp, world.nanoTime() + server.network().latency());
        if (server.network().aimAtExpiry()) {
            long expiry = server.expiryOf(call.script() ? call.command.get(3) : call.command.get(1));
            if (expiry >= commandUp && expiry - commandUp <= Network.AIM_WINDOW_NANOS) {
                commandUp = expiry; // held back a little, to reach Redis exactly at the key's expiry
            }
        }
        call.run = world.at(commandUp, server.actor(), "run " + describe(call.command), () -> {
            Object reply;
            RuntimeException error = null;
            server.running(call.script() ? named(call.command) : call.command);
            try {
                reply = server.model().execute(call.command);
            } catch (ModelRedisException e) {
                reply = null;
                error = e.getMessage().startsWith("NOSCRIPT") ? new RedisNoScriptException(e.getMessage())
                        : new RedisCommandExecutionException(e.getMessage());
            }
            if (sentIn != generation) {
                return; // ran, but the connection dropped meanwhile: the reply is lost
            }
            long ranAt = world.nanoTime();
            Object answered = reply;
            RuntimeException failed = error;
            commandDown = Math.max(commandDown, ranAt + server.network().latency());
            String label = "reply " + call.command.get(0) + " " + (failed != null ? failed.getMessage() : answered);
            call.answer = world.at(commandDown, actor, label, () -> {
                inFlight.remove(call);
                call.timeout.cancel();
                // a read (HEXISTS after a lost reply, the fenced token) may tell, but set no lease: its
                // time is no lease's start
                world.deliver(call.setsLease() ? ranAt : -1, () -> {
                    if (failed != null) {
                        call.future.fail(failed);
                    } else {
                        T value;
                        try {
                            value = call.reply.apply(answered);
                        } catch (RuntimeException e) {
                            call.future.fail(e);
                            return;
                        }
                        call.future.complete(value);
                    }
                });
            });
        });
    }

    /** A script call with the script's name in place of its body or SHA1. */
    private static List<String> named(List<String> command) {
        List<String> named = new ArrayList<>(command);
        named.set(1, ModelCommands.scriptName(command.get(0).equalsIgnoreCase("EVAL")
                ? ModelCommands.sha1(command.get(1)) : command.get(1)));
        return named;
    }

    private static String describe(List<String> command) {
        String name = command.get(0);
        if (name.equalsIgnoreCase("EVAL") || name.equalsIgnoreCase("EVALSHA")) {
            return name + " " + ModelCommands.scriptName(command.get(1)) + " " + command.subList(3, command.size());
        }
        return String.join(" ", command);
    }

    private void fail(Call<?> call, RuntimeException failure) {
        inFlight.remove(call);
        call.timeout.cancel();
        call.future.fail(failure);
    }

    private static RedisConnectionException notConnected() {
        return new RedisConnectionException("the connection was down or dropped with the call in flight; Padlock does"
                + " not let a script be sent again, so whether it ran is not known");
    }

    /** Pushes a published message to this client's pub/sub connection, unless the network loses it. */
    void push(String channel, String message, long publishedAt) {
        if (!connected || server.network().loseMessage()) {
            lostMessage(channel);
            return;
        }
        long sentIn = generation;
        pubSubDown = Math.max(pubSubDown, world.nanoTime() + server.network().messageLatency());
        World.Event[] event = new World.Event[1];
        event[0] = world.at(pubSubDown, actor, "message " + channel + " " + message, () -> {
            messagesOnTheWay.remove(event[0]);
            if (sentIn == generation && events != null) {
                world.deliver(publishedAt, () -> events.message(channel, message));
            }
        });
        messagesOnTheWay.put(event[0], channel);
    }

    /**
     * Drops both connections now: calls in flight fail (each ran or not, by chance), messages on
     * the way are lost, and after a reconnect of 5 to 300 ms the channels are subscribed again.
     */
    public void dropConnections() {
        generation++;
        connected = false;
        server.model().unsubscribeAll(clientId);
        messagesOnTheWay.forEach((message, channel) -> {
            message.cancel();
            lostMessage(channel);
        });
        messagesOnTheWay.clear();
        for (Call<?> call : List.copyOf(inFlight)) {
            lostReply(call);
            if (call.run != null && world.chance(0.5)) {
                call.run.cancel(); // never reached the server
            }
            if (call.answer != null) {
                call.answer.cancel();
            }
            world.at(world.nanoTime(), actor, "dropped " + call.command.get(0), () -> fail(call,
                    new RedisConnectionException("Connection closed")));
        }
        inFlight.clear();
        long reconnect = TimeUnit.MILLISECONDS.toNanos(5 + world.random().nextLong(296));
        world.at(world.nanoTime() + reconnect, actor, "reconnected", this::reconnected);
    }

    private void reconnected() {
        connected = true;
        commandUp = commandDown = pubSubUp = pubSubDown = world.nanoTime();
        List<Runnable> waiting = List.copyOf(waitingForConnection);
        waitingForConnection.clear();
        waiting.forEach(Runnable::run);
        for (String channel : List.copyOf(channels)) {
            subscribeOnServer(channel, null);
        }
    }

    @Override
    public String address() {
        return "redis://model";
    }

    @Override
    public RedisClusterAsyncCommands<String, String> commands() {
        return commands;
    }

    @Override
    public boolean isCluster() {
        return false;
    }

    @Override
    public CompletableFuture<RedisClusterAsyncCommands<String, String>> commandsFor(String key) {
        return CompletableFuture.completedFuture(commands);
    }

    @Override
    public boolean isSharded() {
        return false;
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel) {
        channels.add(channel);
        CompletableFuture<Void> confirmed = new CompletableFuture<>();
        World.Event timeout = world.at(world.nanoTime() + commandTimeoutNanos, actor, "timeout SUBSCRIBE",
                () -> confirmed.completeExceptionally(new RedisCommandTimeoutException("Command timed out")));
        confirmed.whenComplete((ok, failure) -> timeout.cancel());
        if (connected) {
            subscribeOnServer(channel, confirmed);
        } else {
            waitingForConnection.add(() -> confirmed.complete(null)); // the reconnect subscribes it
        }
        return confirmed;
    }

    private void subscribeOnServer(String channel, CompletableFuture<Void> confirmed) {
        long sentIn = generation;
        pubSubUp = Math.max(pubSubUp, world.nanoTime() + server.network().latency());
        world.at(pubSubUp, server.actor(), "run SUBSCRIBE " + channel, () -> {
            if (sentIn != generation) {
                return;
            }
            server.model().subscribe(clientId, channel);
            pubSubDown = Math.max(pubSubDown, world.nanoTime() + server.network().latency());
            world.at(pubSubDown, actor, "subscribed " + channel, () -> {
                if (sentIn != generation) {
                    return;
                }
                if (events != null) {
                    events.subscribed(channel);
                }
                if (confirmed != null) {
                    confirmed.complete(null);
                }
            });
        });
    }

    @Override
    public void unsubscribe(String channel) {
        channels.remove(channel);
        if (!connected) {
            return;
        }
        long sentIn = generation;
        pubSubUp = Math.max(pubSubUp, world.nanoTime() + server.network().latency());
        world.at(pubSubUp, server.actor(), "run UNSUBSCRIBE " + channel, () -> {
            if (sentIn == generation) {
                server.model().unsubscribe(clientId, channel);
            }
        });
    }

    @Override
    public void listen(PubSubEvents events) {
        this.events = events;
    }

    @Override
    public CompletableFuture<Void> refreshTopology() {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public RuntimeException translate(Throwable failure, String operation) {
        return RedisErrors.translate(failure, operation, address());
    }

    @Override
    public void close() {
        generation++;
        connected = false;
        server.model().unsubscribeAll(clientId);
    }
}
