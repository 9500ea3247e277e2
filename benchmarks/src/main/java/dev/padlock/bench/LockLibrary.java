package dev.padlock.bench;

import java.util.ArrayList;
import java.util.List;

/** A lock library under measurement: a name and a way to connect a client of it. */
interface LockLibrary {

    /** Both libraries, Padlock first. */
    static List<LockLibrary> all() {
        return List.of(new PadlockLibrary(), new RedissonLibrary());
    }

    /** The floor: two bare scripts in Redisson's lock format ({@link FloorLibrary}). */
    static LockLibrary floor() {
        return new FloorLibrary();
    }

    /**
     * What runs {@code scenario}: both libraries, then the floor when the scenario is
     * {@link Scenario#withFloor() with a floor}.
     */
    static List<LockLibrary> contenders(Scenario scenario) {
        List<LockLibrary> contenders = new ArrayList<>(all());
        if (scenario.withFloor()) {
            contenders.add(floor());
        }
        return List.copyOf(contenders);
    }

    /**
     * The library called {@code name} ({@link #name()}, case-insensitive).
     *
     * @throws IllegalArgumentException for an unknown name
     */
    static LockLibrary byName(String name) {
        for (LockLibrary library : all()) {
            if (library.name().equalsIgnoreCase(name)) {
                return library;
            }
        }
        if (FloorLibrary.NAME.equalsIgnoreCase(name)) {
            return floor();
        }
        throw new IllegalArgumentException("Unknown library '" + name + "', expected padlock, redisson or floor");
    }

    /** The name shown in the table, e.g. {@code Padlock}. */
    String name();

    /**
     * A new client of {@code target} with the library's default settings: for one server or,
     * given a Cluster's seeds, for that Cluster.
     */
    Client connect(RedisTarget target);

    /** One connected client; hands out locks and semaphores by name. Close it when done. */
    interface Client extends AutoCloseable {

        /** The plain reentrant lock {@code name} ({@code getLock}). */
        default BenchLock lock(String name) {
            return lock(LockKind.LOCK, List.of(name));
        }

        /**
         * A lock of {@code kind} over {@code names}: {@link LockKind#locks()} of them, the
         * components of a multi or red lock, else the one lock's name.
         *
         * @throws IllegalArgumentException when {@code names} does not have the size the kind needs
         */
        BenchLock lock(LockKind kind, List<String> names);

        /**
         * A multi lock ({@code getMultiLock}) over the plain locks ({@code getLock}) of
         * {@code names}, as many as given (scenario 12; the lock family's {@link LockKind#MULTI}
         * has {@value LockKind#COMPOSITE_SIZE}).
         *
         * @throws UnsupportedOperationException when the library has none (the floor)
         */
        BenchLock multiLock(List<String> names);

        /**
         * The counting semaphore {@code name} ({@code getSemaphore}), in Redisson's
         * {@code RSemaphore} format.
         *
         * @throws UnsupportedOperationException when the library has none (the floor)
         */
        BenchSemaphore semaphore(String name);

        @Override
        void close();
    }
}
