/** The fault-schedule soak: worker JVMs on one lock and a fenced resource while a seeded schedule of faults hits the lock's server. */
package dev.padlock.tests.soak;
