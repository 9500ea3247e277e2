/**
 * A demo of Padlock across processes: worker JVMs contend on one lock of the kind chosen with
 * {@code --kind} (plain, fair, read-write, fenced, spin, multi, or a red lock over three servers)
 * and do a deliberately non-atomic read-modify-write of a Redis counter inside it; the parent
 * shows progress and ends with whether the counter is exact, the checks of the kind (torn reads,
 * fencing tokens), the wake-up latency and the Redis commands per acquisition. Run it with
 * {@code ./padlock demo} at the repository root.
 */
package dev.padlock.demo;
