/**
 * Cookbook, testing a controller in virtual time: the recipe is itself a test
 * (examples/cookbook/testing-in-virtual-time.test.ts); the unit project collects only test/**, so
 * it runs from here.
 */
import '../../examples/cookbook/testing-in-virtual-time.test.js';
