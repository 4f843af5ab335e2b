// MathJax for the equations of the physics pages ($...$ and $$...$$, wrapped by
// pymdownx.arithmatex in its generic mode).
window.MathJax = {
  tex: {inlineMath: [["\\(", "\\)"]], displayMath: [["\\[", "\\]"]],
        processEscapes: true, processEnvironments: true, tags: "none"},
  options: {ignoreHtmlClass: ".*|", processHtmlClass: "arithmatex"}
};
