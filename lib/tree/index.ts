export { TREE_FILTERS, isTreeFilter, passesFilter, type TreeFilter } from './filters';
export { buildForest, currentNode, flattenForest, flattenTree, type FlatTree, type FlattenOptions, type Forest, type ForestOptions, type TreeRow } from './flatten';
export { isPrintable, nextBranchRow, previousBranchRow, treeKeyAction, type KeyContext, type KeyInput, type NavRow, type TreeAction } from './keyboard';
export { PREVIEW_MAX, clip, entryPreview, firstLine, formatCount, isToolCallOnly, matchRange, previewSearchText, toolCallPreview, type EntryPreview, type PreviewKind } from './preview';
export { resolveFocusIndex } from './focus';
