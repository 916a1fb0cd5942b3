// mcptrials view: submit filter forms on change and keep the focused step visible. No network.
document.addEventListener("DOMContentLoaded", () => {
  for (const select of document.querySelectorAll("form.filters select")) {
    select.addEventListener("change", () => select.form.submit());
  }
  if (location.hash) {
    const target = document.getElementById(location.hash.slice(1));
    if (target) target.scrollIntoView({block: "center"});
  }
});
