/** The {@code RLock} contract as every kind keeps it: ownership, re-entry, waits and wake-ups, leases and the watchdog, interrupts, bad input, observers, the client registry, grants that keep their promise, and exclusion across processes. */
package dev.padlock.tests.behaviour;
