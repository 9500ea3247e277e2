/** A sample Spring Boot application on Padlock, built for Boot 4 by padlock-sample-boot4 and for Boot 3.5 by padlock-spring-boot3-tests (the same sources): see {@link dev.padlock.sample.app.SampleApplication}. */
package dev.padlock.sample.app;
