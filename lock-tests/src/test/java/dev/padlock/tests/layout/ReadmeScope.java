package dev.padlock.tests.layout;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import reactor.core.publisher.Mono;

/**
 * What README.md's Java snippets take as given, declared so that {@link JavaSnippets} can compile
 * them: a client, a lock, an order and the work done with it. Each snippet becomes a subclass;
 * nothing here runs. {@code ship} returns nothing, as the README's reader's would (issue 38,
 * item 5: a lease one-liner around such work did not compile).
 */
public abstract class ReadmeScope {
    protected LockClient client;
    protected RLock lock;
    protected Order order;
    protected Invoice invoice;
    protected Store store;
    protected Entry entry;
    protected MeterRegistry meterRegistry;

    /** What is shipped under a lock. */
    protected record Order(String id) {
    }

    /** What is sent under a Spring Integration lock. */
    protected record Invoice(String id) {
    }

    /** A write to a store that checks fencing tokens. */
    protected record Entry(String value) {
    }

    /** A store that refuses a write with a token older than one it has seen. */
    protected interface Store {
        void write(Entry entry, long token);
    }

    protected void ship(Order order) {
    }

    protected void ship(Order order, Duration safeFor) {
    }

    protected Mono<Void> shipReactively(Order order) {
        return Mono.empty();
    }

    protected void send(Invoice invoice) {
    }
}
