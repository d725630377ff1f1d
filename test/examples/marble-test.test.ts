/** Runs the marble-test example's own tests in CI (the unit project only collects test/**). */
import '../../examples/marble-test/ttl-controller.test.js';
import '../../examples/marble-test/expiry-controller.test.js';
