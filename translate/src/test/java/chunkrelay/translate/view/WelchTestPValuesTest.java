package chunkrelay.translate.view;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Welch's test against closed forms of Student's t tail (one and two degrees of freedom), the normal limit, and a
 * worked example.
 */
class WelchTestPValuesTest {
    @Test
    void studentsTailMatchesItsClosedFormsForOneAndTwoDegreesOfFreedom() {
        for (double t : new double[] {0.1, 0.5, 1, 2.5, 12.706, 40}) {
            assertEquals(1 - 2 / Math.PI * Math.atan(t), WelchTest.twoSidedTail(t, 1), 1e-10, "df 1, t " + t);
            assertEquals(1 - t / Math.sqrt(2 + t * t), WelchTest.twoSidedTail(t, 2), 1e-10, "df 2, t " + t);
            assertEquals(WelchTest.twoSidedTail(t, 7), WelchTest.twoSidedTail(-t, 7), 1e-15, "symmetric");
        }
        assertEquals(1, WelchTest.twoSidedTail(0, 5), 1e-12);
        assertEquals(0.05, WelchTest.twoSidedTail(1.959964, 1e7), 1e-5, "the normal limit");
        assertEquals(0.05, WelchTest.twoSidedTail(2.228139, 10), 1e-6, "the textbook critical value, df 10");
    }

    @Test
    void welchsTestOfTwoSmallSamplesIsTheWorkedExample() {
        // {1..5} against {3..7}: means 3 and 5, variances 2.5, t = 2 on 8 degrees of freedom
        assertEquals(0.0805162, WelchTest.pValue(3, 2.5, 5, 5, 2.5, 5), 1e-6);
        assertEquals(WelchTest.twoSidedTail(2, 8), WelchTest.pValue(5, 2.5, 5, 3, 2.5, 5), 1e-15);
    }

    @Test
    void sidesWithoutSpreadAreEqualOrCertainlyDifferent() {
        assertEquals(1, WelchTest.pValue(1, 0, 10, 1, 0, 10));
        assertEquals(0, WelchTest.pValue(0.2, 0, 10, 0.3, 0, 10));
    }
}
