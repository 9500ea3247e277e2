/**
 * Padlock's health, whatever the Spring Boot line: {@link dev.padlock.spring.boot.health.PadlockHealthCheck}
 * decides what is UP or DOWN and the details, once; the {@code padlock} health indicator of each
 * line (Boot 4's in the starter, Boot 3's in {@code dev.padlock.spring.boot.boot3}) only copies
 * its result into that line's {@code Health.Builder}. No Spring Boot type is used here.
 */
package dev.padlock.spring.boot.health;
