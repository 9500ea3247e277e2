/** A sample Spring Boot 3.5 application on Padlock: see {@link dev.padlock.sample.boot3.SampleApplication}. */
package dev.padlock.sample.boot3;
