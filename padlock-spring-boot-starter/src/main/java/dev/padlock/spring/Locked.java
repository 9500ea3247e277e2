package dev.padlock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a Spring bean's method under a Padlock lock, taken from the application's
 * {@link dev.padlock.LockClient} bean as a lease (owned by the call, not by a thread).
 *
 * <pre>{@code
 * @Locked(name = "'order:' + #order.id", waitTime = "5s")
 * public Receipt ship(Order order) { ... }
 * }</pre>
 *
 * <p>When the lock is not acquired within {@link #waitTime()} the call throws
 * {@link LockNotAcquiredException} and the method does not run. The lock is released when the
 * method returns or throws; for a method returning {@code CompletionStage}, {@code Mono} or
 * {@code Flux}, when what it returned completes, fails or is cancelled:
 * <ul>
 *   <li>a blocking method waits on the caller's thread; an interrupt during a bounded wait is
 *       kept on the thread and the call throws {@link LockNotAcquiredException} whose cause is the
 *       {@link InterruptedException}; a wait without bound goes on as {@code lock()} does,
 *       keeping the interrupt;</li>
 *   <li>a {@code CompletionStage} (or {@code CompletableFuture}) method returns at once; the method is
 *       invoked once the lock is held, on the thread that acquired it (a Redis client thread: it
 *       must not block), and cancelling the returned future stops the wait or releases the lock;</li>
 *   <li>a {@code Mono} or {@code Flux} method acquires on subscription and releases on complete,
 *       error or cancel (Reactor on the class path).</li>
 * </ul>
 *
 * <p>Every attribute is checked when the bean is created: a {@code name} that is not a SpEL
 * expression, names a parameter the method lacks, or a duration Spring Boot cannot read fails the
 * application's startup with a message that names the method. A lease lost while the method runs
 * is logged (and heard by the client's {@link dev.padlock.LeaseLostListener}); the method is not
 * stopped. Applies to calls through the Spring proxy only (not a call from the bean to itself).
 * Turned off with {@code padlock.locked.enabled=false}.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Locked {

    /**
     * The lock's name: a SpEL expression over the method's arguments, such as
     * {@code "'order:' + #order.id"}. Arguments by name need the class compiled with
     * {@code -parameters} (Spring Boot's Maven and Gradle plugins set it); {@code #p0} or
     * {@code #a0} always work. A literal name is quoted: {@code "'nightly-report'"}. A name that
     * evaluates to null or blank fails the call with {@link IllegalArgumentException} before
     * anything reaches Redis.
     *
     * @return the SpEL expression of the lock's name
     */
    String name();

    /** {@return the kind of lock; {@link Kind#LOCK} by default} */
    Kind kind() default Kind.LOCK;

    /**
     * How long to wait for the lock, as Spring Boot reads a duration ({@code "500ms"},
     * {@code "5s"}, {@code "PT5S"}), with a unit: a bare number fails startup, since Boot would
     * read it as milliseconds where {@code padlock.*} properties read seconds. {@code "0"} means
     * one attempt.
     * Empty (the default): wait as long as it takes.
     *
     * @return the wait, or empty for no bound
     */
    String waitTime() default "";

    /**
     * How long the lock is held at most unless released first, as {@link #waitTime()} reads it.
     * Empty (the default) or {@code "0"}: a watchdog lease, renewed while the method runs.
     *
     * @return the lease, or empty for a watchdog lease
     */
    String leaseTime() default "";

    /** The kinds of lock, each as {@link dev.padlock.LockClient} hands it out. */
    enum Kind {
        /** {@link dev.padlock.LockClient#getLock(String)}: reentrant, non-fair. */
        LOCK,
        /** {@link dev.padlock.LockClient#getFairLock(String)}: first come, first served. */
        FAIR,
        /** The read lock of {@link dev.padlock.LockClient#getReadWriteLock(String)}. */
        READ,
        /** The write lock of {@link dev.padlock.LockClient#getReadWriteLock(String)}. */
        WRITE,
        /** {@link dev.padlock.LockClient#getFencedLock(String)}. */
        FENCED
    }
}
