/** Each lock kind against a real Redis: fair, read-write, fenced, spin, multi and red locks, with their stress tests. */
package dev.padlock.tests.kinds;
