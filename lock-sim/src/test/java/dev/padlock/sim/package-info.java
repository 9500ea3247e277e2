/**
 * The simulator: episodes of several clients of the real engine on one model Redis, in virtual
 * time, driven by a seed ({@code Episode}, {@code Owner}), with faults striking now and then, and
 * the promises of "Who holds a lock" checked after every event ({@code Promises}). A broken one
 * fails with its seed and its trace; broken promises of a known kind, whose fix is other work, are
 * counted ({@code KnownDefect}). See docs/design/simulation.md.
 */
package dev.padlock.sim;
