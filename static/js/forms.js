// Forms that act as soon as a choice is made (the start page's language list), without
// an inline event handler, which the Content-Security-Policy refuses.
document.addEventListener("change", function (event) {
  var field = event.target;
  if (field instanceof HTMLSelectElement && field.hasAttribute("data-submit-on-change") && field.form) {
    field.form.submit();
  }
});
