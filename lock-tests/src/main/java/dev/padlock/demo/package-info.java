/**
 * A demo of Padlock across processes: worker JVMs contend on one lock and do a deliberately
 * non-atomic read-modify-write of a Redis counter inside it; the parent shows progress and ends
 * with whether the counter is exact, the wake-up latency and the Redis commands per
 * acquisition. Run it with {@code ./demo.sh} at the repository root.
 */
package dev.padlock.demo;
