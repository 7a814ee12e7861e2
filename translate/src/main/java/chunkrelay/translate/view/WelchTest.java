package chunkrelay.translate.view;

/**
 * Welch's t-test of two samples' means (unequal variances): the two-sided p-value from Student's t distribution with
 * the Welch–Satterthwaite degrees of freedom. The t distribution's tail is the regularized incomplete beta function
 * {@code I_x(df/2, 1/2)} at {@code x = df / (df + t²)}, evaluated by its continued fraction (Lentz's method) with
 * the Lanczos approximation of the log gamma function; accurate to about 1e-10, far finer than any threshold.
 */
final class WelchTest {
    private static final double[] LANCZOS = {0.99999999999980993, 676.5203681218851, -1259.1392167224028,
            771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
            9.9843695780195716e-6, 1.5056327351493116e-7};
    private static final int MAX_TERMS = 300;
    private static final double EPSILON = 1e-14;
    private static final double TINY = 1e-300;

    private WelchTest() {
    }

    /**
     * The two-sided p-value that samples of these means, variances (n − 1 in the denominator) and sizes (each at
     * least 2) come from populations of equal means. When both variances are 0 it is 1 for equal means and 0 for
     * different ones.
     */
    static double pValue(double mean1, double variance1, int n1, double mean2, double variance2, int n2) {
        if (n1 < 2 || n2 < 2) {
            throw new IllegalArgumentException("each side needs two values, got " + n1 + " and " + n2);
        }
        double a = variance1 / n1;
        double b = variance2 / n2;
        double spread = a + b;
        if (spread <= 0) {
            return mean1 == mean2 ? 1 : 0;
        }
        double t = (mean2 - mean1) / Math.sqrt(spread);
        double df = spread * spread / (a * a / (n1 - 1) + b * b / (n2 - 1));
        return twoSidedTail(t, df);
    }

    /** P(|T| ≥ |t|) for Student's t with {@code df} degrees of freedom. */
    static double twoSidedTail(double t, double df) {
        if (Double.isInfinite(t)) {
            return 0;
        }
        return Math.min(1, regularizedBeta(df / (df + t * t), df / 2, 0.5));
    }

    /** I_x(a, b), the regularized incomplete beta function. */
    static double regularizedBeta(double x, double a, double b) {
        if (x <= 0) {
            return 0;
        }
        if (x >= 1) {
            return 1;
        }
        // the continued fraction converges fast below the mean of the beta distribution; above it use symmetry
        if (x > (a + 1) / (a + b + 2)) {
            return 1 - regularizedBeta(1 - x, b, a);
        }
        double front = Math.exp(a * Math.log(x) + b * Math.log1p(-x) - logBeta(a, b)) / a;
        return front * continuedFraction(x, a, b);
    }

    /** 1 / (1 + d1 / (1 + d2 / (1 + …))) by Lentz's method. */
    private static double continuedFraction(double x, double a, double b) {
        double c = 1;
        double d = 1 - (a + b) * x / (a + 1);
        d = 1 / nonZero(d);
        double value = d;
        for (int m = 1; m <= MAX_TERMS; m++) {
            double even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
            d = 1 / nonZero(1 + even * d);
            c = nonZero(1 + even / c);
            value *= d * c;
            double odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
            d = 1 / nonZero(1 + odd * d);
            c = nonZero(1 + odd / c);
            double step = d * c;
            value *= step;
            if (Math.abs(step - 1) < EPSILON) {
                break;
            }
        }
        return value;
    }

    private static double nonZero(double value) {
        return Math.abs(value) < TINY ? TINY : value;
    }

    private static double logBeta(double a, double b) {
        return logGamma(a) + logGamma(b) - logGamma(a + b);
    }

    /** ln Γ(x) for x ≥ 0.5 (Lanczos, g = 7). */
    static double logGamma(double x) {
        double z = x - 1;
        double sum = LANCZOS[0];
        for (int i = 1; i < LANCZOS.length; i++) {
            sum += LANCZOS[i] / (z + i);
        }
        double t = z + 7.5;
        return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
    }
}
