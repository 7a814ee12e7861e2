package chunkrelay.chunk.art;

import chunkrelay.chunk.primitive.IntIntMap;
import chunkrelay.chunk.primitive.LongIntMap;

import java.util.Arrays;

/**
 * The call stacks of a trace's threads as a prefix tree: one node per distinct (parent, frame), node 0 the empty
 * stack, so a stack is one int and distinct stacks cost one node each. Frames are the trace's methods in order of
 * first enter. For the thread being replayed it also counts how often each frame is on its stack, so that an exit of
 * a method not on the stack is known without walking it.
 */
final class StackTree {
    private int[] nodeParent = new int[256];
    private int[] nodeFrame = new int[256];
    private int[] nodeDepth = new int[256];
    private int nodeCount = 1;
    private final LongIntMap childOf;

    private final IntIntMap frameOfMethod = new IntIntMap(256);
    private int[] frameMethodIds = new int[256];
    private int frameCount;
    /** Per frame, how often it is on the stack of the thread being replayed. */
    private int[] onStack = new int[256];
    private int ignoredExits;

    StackTree(int expectedNodes) {
        this.childOf = new LongIntMap(expectedNodes);
        nodeParent[0] = -1;
        nodeFrame[0] = -1;
    }

    /** The stack after {@code method} is entered on top of {@code node}. */
    int enter(int node, int method) {
        return child(node, frameOf(method));
    }

    /**
     * The stack after {@code method} exits or unwinds from {@code node}: popped down to the topmost occurrence of the
     * method; {@code node} itself, the exit ignored and counted, when the method is not on the stack.
     */
    int exit(int node, int method) {
        int frame = frameOfMethod.get(method);
        if (frame < 0 || onStack[frame] <= 0) {
            ignoredExits++;
            return node;
        }
        int popped;
        do {
            popped = nodeFrame[node];
            onStack[popped]--;
            node = nodeParent[node];
        } while (popped != frame);
        return node;
    }

    /** Leaves the stack {@code node} of a thread whose replay ended, so that the next thread starts empty. */
    void leave(int node) {
        for (; node != 0; node = nodeParent[node]) {
            onStack[nodeFrame[node]]--;
        }
    }

    int nodeCount() {
        return nodeCount;
    }

    int parent(int node) {
        return nodeParent[node];
    }

    int frame(int node) {
        return nodeFrame[node];
    }

    int depth(int node) {
        return nodeDepth[node];
    }

    /** Frame index to the method id it stands for. */
    int[] frameMethodIds() {
        return Arrays.copyOf(frameMethodIds, frameCount);
    }

    /** Exit or unwind records for a method that was not on the thread's stack. */
    int ignoredExits() {
        return ignoredExits;
    }

    private int frameOf(int method) {
        int frame = frameOfMethod.get(method);
        if (frame < 0) {
            frame = frameCount++;
            if (frame == frameMethodIds.length) {
                frameMethodIds = Arrays.copyOf(frameMethodIds, frame * 2);
                onStack = Arrays.copyOf(onStack, frame * 2);
            }
            frameMethodIds[frame] = method;
            frameOfMethod.put(method, frame);
        }
        return frame;
    }

    private int child(int parent, int frame) {
        onStack[frame]++;
        long key = (long) parent << 32 | frame;
        int node = childOf.get(key);
        if (node < 0) {
            node = nodeCount++;
            if (node == nodeParent.length) {
                nodeParent = Arrays.copyOf(nodeParent, node * 2);
                nodeFrame = Arrays.copyOf(nodeFrame, node * 2);
                nodeDepth = Arrays.copyOf(nodeDepth, node * 2);
            }
            nodeParent[node] = parent;
            nodeFrame[node] = frame;
            nodeDepth[node] = nodeDepth[parent] + 1;
            childOf.put(key, node);
        }
        return node;
    }
}
