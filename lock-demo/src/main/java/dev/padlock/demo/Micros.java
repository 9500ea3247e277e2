package dev.padlock.demo;

import java.time.Clock;
import java.time.Instant;

/**
 * The wall clock in epoch microseconds. Processes on one machine share it, so a time written by
 * one worker can be compared with a time read by another; the JDK's system clock has microsecond
 * resolution on Linux.
 */
final class Micros {

    private static final Clock CLOCK = Clock.systemUTC();

    private Micros() {
    }

    static long now() {
        Instant instant = CLOCK.instant();
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000;
    }
}
