package dev.padlock.internal.semaphore;

import static java.util.Objects.requireNonNull;

import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.queue.HandOffBudget;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One client's hand-offs of counted permits ({@code RSemaphore}): a release by a thread of this
 * client gives its permits straight to this client's waiters on the same semaphore, with no Redis
 * call, within a {@link HandOffBudget} per semaphore; what is not handed off is released on Redis.
 *
 * <p><b>Implementation notes.</b> An {@code RSemaphore}'s only truth is its count on Redis:
 * permits in use plus free equal the total, and a permit in use has no owner there. A hand-off
 * moves a permit from one holder of this client to another, so the count stays the truth; it is
 * the release on Redis followed at once by the waiter's acquisition, with no other client's turn
 * between. Hence {@code trySetPermits}, {@code addPermits} and {@code drainPermits} racing with a
 * hand-off see the same count as without it, and a client that dies right after one leaves the
 * permit with the waiter, as a dead holder keeps any {@code RSemaphore} permit.
 * <ul>
 *   <li>Only a waiter that is parked (no attempt in flight) and asks for no more than what is
 *       left of the release is offered permits, oldest first; the others stay registered.</li>
 *   <li>A waiter takes an offer only while its wait is open ({@link Waiter#takeHandOff}, one
 *       compare-and-set with every way its wait ends); an offer it refuses goes to the next
 *       waiter or to Redis, so no permit is lost or duplicated.</li>
 *   <li>Offers are made outside this object's monitor: taking one completes the waiter's
 *       future, whose callbacks may release again.</li>
 *   <li>A chain of hand-offs of a semaphore starts at its first hand-off after a release on Redis
 *       and ends with the next release on Redis: one that finds the budget spent, or nobody to hand
 *       permits to. An entry lives while it has waiters or its chain goes on, so a chain is not
 *       reset by its waiters coming and going. A refused offer still counts against the budget.</li>
 * </ul>
 *
 * <p>Thread-safe: every field is guarded by this object's monitor.
 */
public final class PermitHandOffs {

    /** A wait for permits that may take them from a local release. */
    interface Waiter {
        /** Whether it is parked, with no attempt on Redis in flight. */
        boolean isParked();

        /**
         * Takes the permits offered if the wait is still open, completing it; false when it has
         * ended (its deadline passed, it was cancelled), and then it takes nothing.
         */
        boolean takeHandOff();
    }

    /** One semaphore's waiters, in the order they parked, and its budget. */
    private static final class Entry {
        final Map<Waiter, Integer> waiters = new LinkedHashMap<>();
        final HandOffBudget budget;
        boolean chainGoesOn;

        Entry(EngineClock clock) {
            this.budget = new HandOffBudget(clock);
        }

        boolean isIdle() {
            return waiters.isEmpty() && !chainGoesOn;
        }
    }

    private final EngineClock clock;
    /** By semaphore name; guarded by this. */
    private final Map<String, Entry> entries = new HashMap<>();

    public PermitHandOffs(EngineClock clock) {
        this.clock = requireNonNull(clock, "clock");
    }

    /** Registers {@code waiter}, which waits for {@code permits} of semaphore {@code name}. */
    synchronized void add(String name, int permits, Waiter waiter) {
        entries.computeIfAbsent(name, n -> new Entry(clock)).waiters.put(waiter, permits);
    }

    /** Forgets {@code waiter}, whose wait ended. */
    synchronized void remove(String name, Waiter waiter) {
        Entry entry = entries.get(name);
        if (entry != null) {
            entry.waiters.remove(waiter);
            forgetIfIdle(name, entry);
        }
    }

    /**
     * Hands {@code permits} released by this client on semaphore {@code name} to its waiters, as
     * far as the budget and their counts allow.
     *
     * @return the permits left, to be released on Redis (which then ends the chain)
     */
    int handOff(String name, int permits) {
        int left = permits;
        while (true) {
            Offer offer = next(name, left);
            if (offer == null) {
                return left;
            }
            if (offer.waiter().takeHandOff()) {
                left -= offer.permits();
            }
        }
    }

    /** A waiter, unregistered, and the permits it waits for. */
    private record Offer(Waiter waiter, int permits) {
    }

    /**
     * The next waiter to offer {@code left} permits to, unregistered, or null when none: then,
     * with permits left, the chain ends, as they go to Redis.
     */
    private synchronized @Nullable Offer next(String name, int left) {
        Entry entry = entries.get(name);
        if (entry == null || left <= 0) {
            return null;
        }
        Waiter fits = null;
        for (Map.Entry<Waiter, Integer> waiting : entry.waiters.entrySet()) {
            if (waiting.getValue() <= left && waiting.getKey().isParked()) {
                fits = waiting.getKey();
                break;
            }
        }
        if (fits != null && !entry.chainGoesOn) {
            entry.budget.restart();
            entry.chainGoesOn = true;
        }
        if (fits == null || !entry.budget.allowsHandOff()) {
            entry.chainGoesOn = false; // released on Redis: other clients get their turn
            forgetIfIdle(name, entry);
            return null;
        }
        entry.budget.handedOff();
        int asked = requireNonNull(entry.waiters.remove(fits));
        return new Offer(fits, asked);
    }

    private void forgetIfIdle(String name, Entry entry) {
        if (entry.isIdle()) {
            entries.remove(name);
        }
    }

    /** Semaphores with waiters or a chain going on now; for tests. */
    synchronized int semaphores() {
        return entries.size();
    }
}
