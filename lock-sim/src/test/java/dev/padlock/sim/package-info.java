/**
 * The simulator: episodes of several clients of the real engine on one model Redis, in virtual
 * time, driven by a seed ({@code Episode}, {@code Owner}, and in half the episodes owners of
 * semaphore permits, {@code PermitOwner}), with faults striking now and then, and the promises of
 * "Who holds a lock" and "Semaphores" checked after every event ({@code Promises},
 * {@code SemaphorePromises}). A broken one
 * fails with its seed and its trace; broken promises of a known kind, whose fix is other work, are
 * counted ({@code KnownDefect}). See docs/design/simulation.md.
 */
package dev.padlock.sim;
