/** Padlock and Redisson on the same names: each excludes the other and wakes the other's waiters, for every lock kind both have. */
package dev.padlock.tests.interop;
